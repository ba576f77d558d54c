// SPDX-License-Identifier: GPL-3.0-or-later
/// One `<region>` of an SFZ instrument, its opcodes and those it inherits (`<control>`,
/// `<global>`, `<master>`, `<group>`) resolved into what bendsynth plays. Units as the SFZ
/// format gives them.
public struct SFZRegion: Sendable, Equatable {
    /// How the sample repeats (SFZ `loop_mode`).
    public enum LoopMode: String, Sendable, Equatable {
        case noLoop = "no_loop"
        case oneShot = "one_shot"
        case loopContinuous = "loop_continuous"
        case loopSustain = "loop_sustain"
    }

    /// Where the `<region>` header is.
    public var location: SFZLocation
    /// The sample file, resolved (`default_path`, the instrument's folder) but not checked;
    /// or a generator's name as written (`*sine`: `generator`).
    public var sample: String
    /// The waveform `sample` names instead of a file (`*sine`, …), or nil.
    public var generator: SFZGenerator? { sample.hasPrefix("*") ? SFZGenerator(rawValue: sample) : nil }
    /// The `sample` opcode's line.
    public var sampleLocation: SFZLocation
    /// MIDI keys the region plays, `lokey...hikey` (0…127).
    public var lokey = 0
    public var hikey = 127
    /// The key the sample sounds at as recorded (`pitch_keycenter`); nil: not given (60,
    /// as the format says); `keycenterFromSample`: `pitch_keycenter=sample` (the sample
    /// file's own root, `smpl`/`INST`, else 60).
    public var pitchKeycenter: Int?
    public var keycenterFromSample = false
    /// Velocities the region plays, `lovel...hivel` (1…127; 0 counts as 1).
    public var lovel = 1
    public var hivel = 127
    /// Fine tuning, cents; transposition, semitones.
    public var tune = 0.0
    public var transpose = 0
    /// Level, dB (−144…+6).
    public var volume = 0.0
    /// Pan, −100 (left)…+100 (right).
    public var pan = 0.0
    /// Sends to effect buses 1 (the reverb) and 2 (the chorus), percent 0…100 (sfizz's
    /// `effect1`, `effect2`); nil: the instrument's default send.
    public var effect1: Double?
    public var effect2: Double?
    /// The sample's first frame played (`offset`), and its last (`end`, inclusive; nil: the
    /// sample's last).
    public var offset = 0
    public var end: Int?
    /// `loop_mode`; nil: not given (a sample with a loop of its own loops on,
    /// `loop_continuous`; one without plays once, `no_loop`: the format's rule).
    public var loopMode: LoopMode?
    /// The loop's first and last frame (`loop_start`, `loop_end`, inclusive); nil: the
    /// sample file's loop.
    public var loopStart: Int?
    public var loopEnd: Int?
    /// The amplitude envelope (`ampeg_attack`, `_decay`, `_release` in seconds,
    /// `_sustain` in percent); nil: not given (bendsynth's own envelope, `--attack` …).
    public var attack: Double?
    public var decay: Double?
    public var sustain: Double?
    public var release: Double?
    /// Round robin: `seq_length` regions take turns, this one at `seq_position` (1-based).
    public var sequenceLength = 1
    public var sequencePosition = 1

    public init(location: SFZLocation, sample: String, sampleLocation: SFZLocation) {
        self.location = location
        self.sample = sample
        self.sampleLocation = sampleLocation
    }
}
