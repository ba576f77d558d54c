// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// A tone file as `ToneLoader` read and converted it: what the file says (its channels,
/// its sustain loop, its root) at the output rate, and what the engine plays today.
///
/// Until the engine plays loop points and stereo voices, it plays `samples`: the whole
/// file, mono, looped (`ToneTable(samples: loaded.samples, rate: outputRate)`). The rest
/// is the file kept as it is for the voices that will: `channels`, `loop`, `root`.
public struct LoadedTone: Sendable, Equatable {
    /// What the engine plays today: the whole file as one loop, mono (the channels'
    /// mix, `ToneLoader`'s rule), at the output rate; all finite; at least 1 frame.
    /// Without a loop in the file it is `channels`' mix, `loop.repetitions` times the
    /// file's length at the output rate. DC removed (`removedDC`).
    public var samples: [Float]
    /// The file's audio at the output rate, one array per channel, each `frames` long:
    /// 1 channel (a mono file, or a file of 3 or more channels mixed down as `samples`
    /// is) or 2 (left, right). The attack (`0 ..< loop.start`), the sustain loop
    /// (`loop.start ..< loop.end`, seamless at the output rate) and the release tail
    /// (`loop.end ..< frames`). Linear, −1…+1 for an in-range file; DC removed.
    public var channels: [[Float]]
    /// The sustain loop in `channels`: the file's (WAV `smpl`, AIFF `INST`/`MARK`,
    /// through libsndfile's `SFC_GET_INSTRUMENT`), or the whole file when it has none.
    public var loop: ToneLoop
    /// The MIDI note the tone sounds at as recorded, from the file or detected; nil
    /// when the file names none and no steady pitch was found (or detection was off).
    public var root: ToneRoot?
    /// The file's rate, frames per second.
    public var sourceRate: Int
    /// The file's channel count (≥ 1).
    public var sourceChannels: Int
    /// Frames actually read from the file (never the header's claim).
    public var sourceFrames: Int
    /// The DC offset taken out of each of `channels` before conversion (the sustain
    /// loop's mean at the file's rate, linear; 0 where it was below −96 dBFS and left).
    public var removedDC: [Double]
    /// What the loader did to the audio, one sentence each (mix-down, resampling, DC,
    /// the root, …), for the log.
    public var notes: [String]

    /// Frames of each of `channels` at the output rate.
    public var frames: Int { channels[0].count }
}

/// A sustain loop, at the output rate: frames `start ..< end` of `LoadedTone.channels`.
public struct ToneLoop: Sendable, Equatable {
    /// How a voice goes through the loop (libsndfile's `SF_LOOP_*`).
    public enum Mode: Sendable, Equatable {
        /// start → end − 1, start → end − 1, …
        case forward
        /// end − 1 → start, end − 1 → start, … (the frames in reverse; the seam between
        /// `start` and `end − 1` is the forward loop's).
        case backward
        /// start → end − 1 → start → …, each turning frame played once (period
        /// 2·(end − start − 1) frames). `end − 1` and `start` fall on frames at the output
        /// rate exactly (the conversion's ratio is stretched for it: `pitchErrorCents`).
        case alternating
    }

    /// First frame of the loop, frames at the output rate (0 ≤ start < end).
    public var start: Int
    /// One past the loop's last frame, frames at the output rate (end ≤ `LoadedTone.frames`).
    public var end: Int
    public var mode: Mode
    /// Whether the loop is the file's own; false: the file has none and loops whole
    /// (start 0, end `LoadedTone.frames`).
    public var fromFile: Bool
    /// The loop in the file: frames `sourceStart ..< sourceEnd` at the file's rate.
    public var sourceStart: Int
    public var sourceEnd: Int
    /// How many times the file's loop is repeated in `start ..< end` (≥ 1): a forward or
    /// backward loop whose length at the output rate is not a whole number of frames is
    /// repeated until it nearly is (`ToneLoader`'s rate conversion).
    public var repetitions: Int
    /// What the conversion did to the pitch, cents (+: higher): the file's loop made a
    /// whole number of output frames long by a tiny change of the ratio. 0 when the
    /// rates are equal or the length came out whole; within ±0.01 cent for a forward or
    /// backward loop.
    public var pitchErrorCents: Double

    public init(start: Int, end: Int, mode: Mode, fromFile: Bool, sourceStart: Int, sourceEnd: Int,
                repetitions: Int = 1, pitchErrorCents: Double = 0) {
        self.start = start
        self.end = end
        self.mode = mode
        self.fromFile = fromFile
        self.sourceStart = sourceStart
        self.sourceEnd = sourceEnd
        self.repetitions = repetitions
        self.pitchErrorCents = pitchErrorCents
    }
}

/// The pitch a tone sounds at as recorded: what a MIDI note of that number plays at
/// ratio 1.
public struct ToneRoot: Sendable, Equatable {
    /// Where the root came from.
    public enum Origin: Sendable, Equatable {
        /// The file's instrument chunk (WAV `smpl` MIDI unity note and pitch fraction,
        /// AIFF `INST` base note and detune) or ACID loop info's root key.
        case file
        /// Estimated from the sound (`PitchDetector`, YIN on the loop).
        case detected
        /// The default tone: A4 = 440 Hz by definition.
        case defaultTone
        /// Given on the command line (`--tone-note`).
        case given
    }

    /// MIDI note, fine tune included: 69 = A4 = 440 Hz, 60.37 = C4 + 37 cents. 0…127.
    public var note: Double
    public var origin: Origin

    public init(note: Double, origin: Origin) {
        self.note = note
        self.origin = origin
    }

    /// The root's pitch in Hz (12-TET, A4 = 440 Hz).
    public var hz: Double { 440 * pow(2, (note - 69) / 12) }

    /// The note as text: "E4 +2.0 cents (MIDI 64.020, 330.00 Hz)".
    public var name: String {
        let nearest = Int(note.rounded())
        let cents = (note - Double(nearest)) * 100
        let names = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]
        let label = names[((nearest % 12) + 12) % 12] + String(nearest / 12 - 1)
        return label + " " + (cents < 0 ? "−" : "+") + String(format: "%.1f cents (MIDI %.3f, %.2f Hz)", abs(cents), note, hz)
    }
}
