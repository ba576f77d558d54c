// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import BendSystem

/// The tempo clock's options and the arpeggiator's, shared by every command that makes
/// sound (part of `SoundOptions`; docs/TEMPO.md).
struct TempoOptions {
    /// `--bpm`: the internal tempo.
    var bpm = 120.0
    /// `--tempo-source`; nil: auto.
    var source: TempoSource?
    var arpeggiator = ArpSettings()

    static let specs: [OptionSpec] = [
        OptionSpec("bpm", value: "N", help: "the internal tempo: the arpeggiator's and the delay's note values follow it when no other source leads (20…300 BPM, default 120)"),
        OptionSpec("tempo-source", value: "SOURCE", help: "where the tempo comes from: 'auto' (default: render's MIDI file's tempo map, else --bpm; the log says which), 'midi-file' (render of a MIDI file only) or 'internal' (--bpm)"),
        OptionSpec("arp", value: "PATTERN", help: "the arpeggiator: every held touch or note joins the pattern 'up', 'down', 'updown', 'random' or 'played' (in the order they came down), each note at its touch's current pitch; 'off' (default)"),
        OptionSpec("arp-rate", value: "NOTE", help: "the arpeggiator's step: 1/4, 1/8, 1/16 (default), 1/32, dotted with '.' (1/8.), triplet with 't' (1/16t)"),
        OptionSpec("arp-octaves", value: "N", help: "octaves the arpeggio spans (1…4, default 1)"),
        OptionSpec("arp-gate", value: "FRACTION", help: "how long each arpeggiated note sounds, a fraction of its step (0.05…1, default 0.5)"),
        OptionSpec("arp-swing", value: "AMOUNT", help: "each second step late by AMOUNT/2 of a step (0…1, default 0: straight; 0.67 a triplet feel)"),
        OptionSpec("arp-latch", help: "lifted touches stay in the arpeggio until a touch comes down while none is held"),
    ]

    /// Applies one parsed option; returns false when it is not a tempo option.
    mutating func apply(_ name: String, _ value: String?) throws -> Bool {
        switch name {
        case "bpm": bpm = try OptionValue.number(value, option: name, in: 20...300)
        case "tempo-source":
            switch value {
            case "auto": source = nil
            case "midi-file": source = .midiFile
            case "internal": source = .internal
            default: throw AppError.usage("option '--tempo-source': expected 'auto', 'midi-file' or 'internal', got '\(value ?? "")'")
            }
        case "arp":
            guard let p = ArpPattern.allCases.first(where: { $0.name == value }) else {
                throw AppError.usage("option '--arp': expected 'up', 'down', 'updown', 'random', 'played' or 'off', got '\(value ?? "")'")
            }
            arpeggiator.pattern = p
        case "arp-rate":
            guard let r = ArpSettings.rate(named: value ?? "") else {
                throw AppError.usage("option '--arp-rate': expected 1/4, 1/8, 1/16 or 1/32, dotted (1/8.) or triplet (1/16t), got '\(value ?? "")'")
            }
            (arpeggiator.division, arpeggiator.dotted, arpeggiator.triplet) = r
        case "arp-octaves": arpeggiator.octaves = try OptionValue.integer(value, option: name, in: 1...4)
        case "arp-gate": arpeggiator.gate = try OptionValue.number(value, option: name, in: 0.05...1)
        case "arp-swing": arpeggiator.swing = try OptionValue.number(value, option: name, in: 0...1)
        case "arp-latch": arpeggiator.latch = true
        default: return false
        }
        return true
    }
}
