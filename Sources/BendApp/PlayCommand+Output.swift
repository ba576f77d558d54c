import BendAudio
import BendControl
import CALSA
import Glibc

/// Where `play`'s sound and MIDI go: the ALSA PCM or JACK client it opens, and the MIDI
/// ports and sources that come with them.
extension PlayCommand {
    /// `--midi-in`: JACK's midi_in with -a jack, else an ALSA sequencer port.
    static func midiInSource(_ o: Options) throws -> InputSource {
        if o.audio.driver == .jack { return JACKMIDIInSource(keys: o.sound.keyboardTuning) }
        return try ALSASeqMIDISource(keys: o.sound.keyboardTuning, clientName: "bendsynth")
    }

    /// Registers the JACK MIDI ports asked for (before the client starts) and hands
    /// midi_in's ring to its source; nil without -a jack or MIDI.
    static func openMIDIPorts(_ o: Options, output: AudioOutput, sources: [InputSource]) throws -> JACKMIDIRings? {
        guard let jack = output as? JACKOutput, o.audio.midiIn || o.audio.midiOut else { return nil }
        do {
            let rings = try jack.enableMIDI(input: o.audio.midiIn, output: o.audio.midiOut)
            for case let s as JACKMIDIInSource in sources { s.rings = rings }
            return rings
        } catch {
            output.stop()
            throw AppError.runtime("cannot open the JACK MIDI ports: \(error)")
        }
    }

    /// The ALSA PCM asked for; when it does not open: say so, list the PCMs that exist,
    /// and play into the recording alone if there is one. With -a jack, the JACK client
    /// (no fallback: a missing server is a failure, exit 1).
    static func openOutput(_ o: Options) throws -> AudioOutput {
        if o.audio.driver == .jack {
            do { return try JACKOutput(name: o.audio.jackName, connect: o.audio.jackConnect) } catch {
                throw AppError.runtime("cannot open the JACK client: \(error)")
            }
        }
        calsa_silence_library_messages()
        do {
            let alsa = try ALSAOutput(device: o.device, rate: o.sound.rate, periodFrames: o.period, periods: o.periods)
            guard alsa.pcmType != "NULL" else {
                // The null PCM takes periods as fast as they come: a live take would race ahead.
                printErr("bendsynth: note: ALSA '\(o.device)' is a null PCM (it discards sound and keeps no time); playing paced by the clock instead")
                alsa.stop()
                return PacedOutput(rate: alsa.rate, periodFrames: alsa.periodFrames,
                                   label: "ALSA '\(o.device)' (null PCM): rendering in real time, paced by the clock" + (o.record == nil ? "" : ", into the recording"))
            }
            return alsa
        } catch {
            printErr("bendsynth: cannot open ALSA PCM '\(o.device)': \(error)")
            printErr(DevicesCommand.report())
            guard o.record != nil else {
                throw AppError.runtime("no sound output: pick a PCM that opens with --device, or " + (o.noOutputHint ?? "add --record FILE.wav to play into a file"))
            }
            return PacedOutput(rate: o.sound.rate, periodFrames: o.period)
        }
    }
}
