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
