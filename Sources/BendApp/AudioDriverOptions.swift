// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import BendAudio
import Foundation

/// `-a, --audio-driver`: where play's sound goes.
enum AudioDriver: String {
    case alsa, jack
}

/// The `play` options of the audio driver and of MIDI in and out: `-a alsa|jack`,
/// `--jack-name`, `--no-connect`, `--midi-in`, `--midi-out`.
struct AudioDriverOptions {
    var driver = AudioDriver.alsa
    var jackName = "bendsynth"
    var jackConnect = true
    var midiIn = false
    var midiOut = false
    /// ALSA-only options given (refused with -a jack), and JACK-only ones (refused with alsa).
    var alsaOnly: [String] = []
    var jackOnly: [String] = []

    static let specs: [OptionSpec] = [
        OptionSpec("audio-driver", "a", value: "alsa|jack", help: "where the sound goes: an ALSA PCM (default) or a native JACK client (PipeWire: run under pw-jack)"),
        OptionSpec("jack-name", value: "NAME", help: "with -a jack: the JACK client name (default 'bendsynth'; ports out_L, out_R)"),
        OptionSpec("no-connect", help: "with -a jack: leave out_L/out_R unconnected (default: to the first two system:playback_* ports)"),
        OptionSpec("midi-in", help: "play MIDI and MPE as an input source: JACK port midi_in with -a jack, else an ALSA sequencer port"),
        OptionSpec("midi-out", help: "with -a jack: send every touch as MPE on the JACK port midi_out"),
    ]

    /// Applies one parsed option; returns false when it is not one of these.
    mutating func apply(_ name: String, _ value: String?) throws -> Bool {
        switch name {
        case "audio-driver":
            guard let d = AudioDriver(rawValue: value ?? "") else {
                throw AppError.usage("play: --audio-driver '\(value ?? "")': expected alsa or jack")
            }
            driver = d
        case "jack-name":
            guard let v = value, !v.isEmpty, !v.contains(":"), v.utf8.count <= JACKOutput.maximumClientNameBytes else {
                throw AppError.usage("play: --jack-name '\(value ?? "")': expected a client name without ':' of at most \(JACKOutput.maximumClientNameBytes) bytes")
            }
            jackName = v; jackOnly.append("--jack-name")
        case "no-connect": jackConnect = false; jackOnly.append("--no-connect")
        case "midi-in": midiIn = true
        case "midi-out": midiOut = true; jackOnly.append("--midi-out")
        case "device", "period", "periods": alsaOnly.append("--" + name); return false  // play reads their values
        default: return false
        }
        return true
    }

    /// - Throws: `AppError.usage` for ALSA's options with -a jack and JACK's without it.
    func validate() throws {
        if driver == .jack, let first = alsaOnly.first {
            throw AppError.usage("play: \(first) is for ALSA; with -a jack the device, rate and period are the JACK server's (jack_bufsize changes its period)")
        }
        if driver == .alsa, let first = jackOnly.first {
            throw AppError.usage("play: \(first) is for the JACK client; add -a jack")
        }
    }
}
