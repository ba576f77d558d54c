// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import BendSystem
import Foundation

/// The send effects' options (`SendEffects`: reverb, delay, chorus), shared by every
/// command that makes sound (part of `SoundOptions`; the tempo: `TempoOptions`).
struct EffectOptions {
    var settings = EffectSettings()

    static let specs: [OptionSpec] = [
        OptionSpec("reverb-send", value: "LEVEL", help: "the voices' default send to the reverb (0…1, default 0: dry); MIDI CC 91 sets a channel's (an MPE note's)"),
        OptionSpec("reverb-decay", value: "SECONDS", help: "the reverb's decay time RT60 (0.2…20 s, default 2.2)"),
        OptionSpec("reverb-damping", value: "AMOUNT", help: "how much faster the reverb's highs die than its lows (0…1, default 0.35)"),
        OptionSpec("reverb-predelay", value: "MS", help: "silence before the reverb starts (0…250 ms, default 15)"),
        OptionSpec("reverb-size", value: "SIZE", help: "the room's size: its echoes' spacing (0…1, default 0.5)"),
        OptionSpec("reverb-width", value: "WIDTH", help: "the reverb's stereo width: 0 mono, 1 each side its own (default 1: a hard-left voice's reverb stays left)"),
        OptionSpec("reverb-return", value: "DB", help: "the reverb's return level (−60…+6 dB, default 0)"),
        OptionSpec("delay", value: "TIME", help: "the delay's time: milliseconds (1…4000) or a note value of the tempo (--bpm, --tempo-source): 1/4, 1/8. (dotted), 1/8t (triplet), 1/1…1/64, held at 4 s at most (default 1/8.)"),
        OptionSpec("delay-send", value: "LEVEL", help: "the voices' default send to the delay (0…1, default 0)"),
        OptionSpec("delay-feedback", value: "AMOUNT", help: "each echo's level against the one before (0…0.98, default 0.35)"),
        OptionSpec("delay-mode", value: "MODE", help: "the delay's echoes: 'ping-pong' (alternating sides, default), 'stereo' (each side its own) or 'mono'"),
        OptionSpec("delay-high-cut", value: "HZ", help: "low-pass in the delay's feedback: each echo darker (0 = off, 200…20000 Hz, default 8000)"),
        OptionSpec("delay-to-reverb", value: "LEVEL", help: "how much of the echoes goes on into the reverb (0…1, default 0.3)"),
        OptionSpec("chorus-send", value: "LEVEL", help: "the voices' default send to the chorus (0…1, default 0); MIDI CC 93 sets a channel's"),
        OptionSpec("chorus-rate", value: "HZ", help: "the chorus's sweep rate (0.01…10 Hz, default 0.6)"),
        OptionSpec("chorus-depth", value: "MS", help: "the chorus's sweep depth either side of its 12 ms (0…8 ms, default 2.5)"),
    ]

    /// Applies one parsed option; returns false when it is not an effect option.
    mutating func apply(_ name: String, _ value: String?) throws -> Bool {
        let n = { (range: ClosedRange<Double>) throws -> Double in try OptionValue.number(value, option: name, in: range) }
        switch name {
        case "reverb-send": settings.reverbSend = try n(0...1)
        case "reverb-decay": settings.reverb.decaySeconds = try n(0.2...20)
        case "reverb-damping": settings.reverb.damping = try n(0...1)
        case "reverb-predelay": settings.reverb.preDelaySeconds = try n(0...250) / 1000
        case "reverb-size": settings.reverb.size = try n(0...1)
        case "reverb-width": settings.reverb.width = try n(0...1)
        case "reverb-return": settings.reverb.returnLevel = pow(10, try n(-60...6) / 20)
        case "delay":
            guard let v = value, let time = DelayTime(text: v) else {
                throw AppError.usage("option '--delay': expected milliseconds (1…4000) or a note value such as 1/4, 1/8. or 1/8t, got '\(value ?? "")'")
            }
            if case .milliseconds(let ms) = time, !(1...4000).contains(ms) {
                throw AppError.usage("option '--delay': expected milliseconds in 1…4000, got '\(value ?? "")'")
            }
            settings.delay.time = time
        case "delay-send": settings.delaySend = try n(0...1)
        case "delay-feedback": settings.delay.feedback = try n(0...0.98)
        case "delay-mode":
            switch value {
            case "ping-pong": settings.delay.mode = .pingPong
            case "stereo": settings.delay.mode = .stereo
            case "mono": settings.delay.mode = .mono
            default: throw AppError.usage("option '--delay-mode': expected 'ping-pong', 'stereo' or 'mono', got '\(value ?? "")'")
            }
        case "delay-high-cut":
            let hz = try n(0...20_000)
            guard hz == 0 || hz >= 200 else { throw AppError.usage("option '--delay-high-cut': expected 0 (off) or 200…20000 Hz, got '\(value ?? "")'") }
            settings.delay.highCutHz = hz
        case "delay-to-reverb": settings.delay.toReverb = try n(0...1)
        case "chorus-send": settings.chorusSend = try n(0...1)
        case "chorus-rate": settings.chorus.rateHz = try n(0.01...10)
        case "chorus-depth": settings.chorus.depthMilliseconds = try n(0...8)
        default: return false
        }
        return true
    }
}
