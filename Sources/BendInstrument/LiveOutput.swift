// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import CALSA

/// Where a live instrument's sound and MIDI go: the ALSA PCM or JACK client it opens,
/// and the MIDI ports that come with a JACK client.
enum LiveOutput {
    /// The output `settings` ask for. When an ALSA PCM does not open: say why, list the
    /// PCMs that exist (`deviceReport`), and play into the recording alone if there is
    /// one (paced by the clock). The `null` PCM keeps no time: paced by the clock too.
    /// A JACK client has no fallback: a missing server is a failure.
    /// - Throws: `InstrumentError(.runtime)`.
    static func open(_ settings: OutputSettings, rate: Int, recording: Bool, log: (String) -> Void, show: (String) -> Void,
                     deviceReport: () -> String) throws -> AudioOutput {
        switch settings.driver {
        case let .jack(name, connect):
            do { return try JACKOutput(name: name, connect: connect) } catch {
                throw InstrumentError(.runtime, "cannot open the JACK client: \(error)")
            }
        case let .alsa(device, period, periods):
            calsa_silence_library_messages()
            do {
                let alsa = try ALSAOutput(device: device, rate: rate, periodFrames: period, periods: periods)
                guard alsa.pcmType != "NULL" else {
                    // The null PCM takes periods as fast as they come: a live take would race ahead.
                    log("note: ALSA '\(device)' is a null PCM (it discards sound and keeps no time); playing paced by the clock instead")
                    alsa.stop()
                    return PacedOutput(rate: alsa.rate, periodFrames: alsa.periodFrames,
                                       label: "ALSA '\(device)' (null PCM): rendering in real time, paced by the clock" + (recording ? ", into the recording" : ""))
                }
                return alsa
            } catch {
                log("cannot open ALSA PCM '\(device)': \(error)")
                show(deviceReport())
                guard recording else {
                    throw InstrumentError(.runtime, "no sound output: pick a PCM that opens with --device, or " + (settings.noOutputHint ?? "add --record FILE.wav to play into a file"))
                }
                return PacedOutput(rate: rate, periodFrames: period)
            }
        }
    }

    /// Registers the output's MIDI ports asked for (a JACK client's, before it starts)
    /// and hands `midi_in`'s queue to the sources that want it; nil when the output has
    /// none or none is asked for.
    /// - Throws: `InstrumentError(.runtime)`.
    static func openMIDI(_ settings: OutputSettings, output: AudioOutput, sources: [InputSource]) throws -> JACKMIDIRings? {
        let wanting = sources.filter(\.wantsOutputMIDI)
        guard !wanting.isEmpty || settings.midiOut else { return nil }
        do {
            guard let rings = try output.openMIDI(input: !wanting.isEmpty, output: settings.midiOut) else { return nil }
            if let queue = rings.received { wanting.forEach { $0.takeMIDI(queue, status: rings) } }
            return rings
        } catch {
            throw InstrumentError(.runtime, "cannot open the JACK MIDI ports: \(error)")
        }
    }
}
