// SPDX-License-Identifier: GPL-3.0-or-later
/// The order the arpeggiator plays its held touches in.
public enum ArpPattern: UInt8, BitwiseCopyable, Sendable, CaseIterable {
    /// Off: touches sound as they are played.
    case off
    /// Lowest to highest (by each touch's current pitch), then the next octave up.
    case up
    /// Highest to lowest, from the top octave down.
    case down
    /// Up, then down, the top and bottom notes once each.
    case upDown
    /// Any held note, any octave, each step (a fixed-seed generator: renders repeat).
    case random
    /// In the order the touches came down, then the next octave up.
    case played

    /// The name `--arp` takes.
    public var name: String {
        switch self {
        case .off: "off"
        case .up: "up"
        case .down: "down"
        case .upDown: "updown"
        case .random: "random"
        case .played: "played"
        }
    }
}

/// The arpeggiator's controls (`Arpeggiator`): plain values the mixer takes at setup, or
/// between periods (`Mixer.setArpeggiator`).
public struct ArpSettings: BitwiseCopyable, Sendable, Equatable {
    public var pattern = ArpPattern.off
    /// The step, as a note value: 1/`division` of a whole note (4…32), × 1.5 dotted or
    /// × 2/3 triplet.
    public var division = 16
    public var dotted = false
    public var triplet = false
    /// Octaves the pattern spans, 1…4 (each held touch also an octave up, two up, …).
    public var octaves = 1
    /// How long each note sounds, fraction of its step, 0.05…1.
    public var gate = 0.5
    /// Swing, 0…1: each second step comes late by `swing`/2 of a step (0 straight, 2/3 a
    /// triplet feel, 1 a dotted one).
    public var swing = 0.0
    /// Lifted touches stay in the pattern until a touch comes down while none is held.
    public var latch = false

    @_noLocks @inlinable public init() {}

    /// The step in beats of `beatUnit` (4: quarter-note beats), straight (before swing).
    @_noLocks
    public func stepBeats(beatUnit: Double) -> Double {
        let plain = beatUnit / Double(max(division, 1))
        return dotted ? plain * 1.5 : triplet ? plain * 2 / 3 : plain
    }

    /// The rate as `--arp-rate` writes it: 1/16, 1/8. (dotted), 1/8t (triplet).
    public var rateName: String { "1/\(division)" + (dotted ? "." : triplet ? "t" : "") }

    /// A rate from its name (1/4, 1/8, 1/16, 1/32; a '.' after it dotted, a 't' triplet),
    /// nil when it is none of them.
    public static func rate(named text: String) -> (division: Int, dotted: Bool, triplet: Bool)? {
        var t = Substring(text)
        let dotted = t.hasSuffix(".")
        let triplet = t.hasSuffix("t")
        if dotted || triplet { t = t.dropLast() }
        guard t.hasPrefix("1/"), let n = Int(t.dropFirst(2)), [4, 8, 16, 32].contains(n) else { return nil }
        return (n, dotted, triplet)
    }
}
