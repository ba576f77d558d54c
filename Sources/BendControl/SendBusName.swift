// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine

extension SendBus {
    /// The bus's name in touch scripts, options and OSC: "reverb", "delay", "chorus".
    public var name: String {
        switch self {
        case .reverb: "reverb"
        case .delay: "delay"
        case .chorus: "chorus"
        }
    }

    /// The bus named `name`; nil for another word.
    public init?(name: String) {
        guard let bus = SendBus.allCases.first(where: { $0.name == name }) else { return nil }
        self = bus
    }
}

extension ControlEvent {
    /// A `.send` of touch `id` to the bus named `bus` ("reverb", "delay", "chorus"), its
    /// level clamped to 0…1; nil for another name (a source that reads names off the wire).
    public static func send(id: UInt32, busNamed bus: String, level: Double) -> ControlEvent? {
        guard let b = SendBus(name: bus), level.isFinite else { return nil }
        return .send(id: id, bus: b, level: min(max(level, 0), 1))
    }
}
