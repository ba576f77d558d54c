// SPDX-License-Identifier: GPL-3.0-or-later
/// Where the tempo comes from (`TempoClock.source`). `--tempo-source auto` takes the first
/// present in the order of the cases: a plugin host's transport, render's MIDI file tempo
/// map, the internal `--bpm`. Each source is one producer of clocks for
/// `Mixer.publishTempo`; the render side does not change with it. The live sources still
/// to come (JACK transport, MIDI clock in, Ableton Link; issue 36) each add a case here,
/// after `host`.
public enum TempoSource: UInt8, BitwiseCopyable, Sendable, CaseIterable {
    /// The plugin host's transport (LV2 `time:Position`).
    case host
    /// A Standard MIDI File's tempo map (`render FILE.mid`).
    case midiFile
    /// `--bpm` (120 by default): steady, always playing.
    case `internal`

    /// The name `--tempo-source` and the log use.
    public var name: String {
        switch self {
        case .host: "host"
        case .midiFile: "midi-file"
        case .internal: "internal"
        }
    }
}

/// The tempo as the render thread sees it: a plain value published to it
/// (`Mixer.publishTempo`, a bounded SPSC ring), each clock true from its `frame` on.
/// A source publishes one at each change (a MIDI file's tempo map, a host's position),
/// or one a period (a live source whose beat drifts); between clocks the render thread
/// advances the beat by `beatsPerFrame` per frame (`TempoTrack.clock`). The
/// arpeggiator's steps and the delay's note values follow it.
public struct TempoClock: BitwiseCopyable, Sendable, Equatable {
    /// Stream frame at which `beat` holds (a clock published for a period: its first
    /// frame; a change: the frame it takes effect).
    public var frame: UInt64
    /// Beat position at `frame`, beats (of `beatUnit`) since the song's start.
    public var beat: Double
    /// Tempo, beats (of `beatUnit`) per minute, 1…1000.
    public var bpm: Double
    /// Beat advance per frame: bpm / 60 / rate × the transport's speed (0 when stopped).
    public var beatsPerFrame: Double
    /// Bar number at `frame` (0: the first bar).
    public var bar: Int64
    /// Beats into the bar at `frame`, 0 ..< `beatsPerBar`.
    public var barBeat: Double
    /// The meter: beats per bar (its numerator) and the note value of a beat (its
    /// denominator: 4 a quarter, 8 an eighth).
    public var beatsPerBar: Double
    public var beatUnit: Double
    /// The transport rolls (false: stopped; the beat stands still).
    public var playing: Bool
    public var source: TempoSource

    /// A clock of `bpm` at `rate` (frames per second) whose beat is `beat` at `frame`, in
    /// 4/4, playing; its bar and bar beat follow from the beat.
    @_noLocks
    public init(frame: UInt64 = 0, beat: Double = 0, bpm: Double, rate: Double, source: TempoSource = .internal,
                beatsPerBar: Double = 4, beatUnit: Double = 4, playing: Bool = true) {
        self.frame = frame
        self.beat = beat
        self.bpm = bpm
        self.beatsPerFrame = playing ? bpm / 60 / rate : 0
        self.beatsPerBar = beatsPerBar
        self.beatUnit = beatUnit
        let bars = beatsPerBar > 0 ? TempoClock.floor(beat / beatsPerBar) : 0
        self.bar = Int64(bars)
        self.barBeat = beat - bars * beatsPerBar
        self.playing = playing
        self.source = source
    }

    /// This clock at stream frame `at` (≥ `frame`): the beat and bar moved on at
    /// `beatsPerFrame`.
    @_noLocks
    public func advanced(to at: UInt64) -> TempoClock {
        guard at > frame else { return self }
        var c = self
        let beats = Double(at &- frame) * beatsPerFrame
        c.frame = at
        c.beat = beat + beats
        var barBeat = self.barBeat + beats
        if beatsPerBar > 0 && barBeat >= beatsPerBar {
            let bars = TempoClock.floor(barBeat / beatsPerBar)
            barBeat -= bars * beatsPerBar
            c.bar = bar &+ Int64(bars)
        }
        c.barBeat = barBeat
        return c
    }

    /// ⌊x⌋ for |x| < 2^63 (`rounded(.down)` is not checked-safe on the render thread).
    @_noLocks @inline(__always)
    static func floor(_ x: Double) -> Double {
        let t = Double(Int64(x))
        return t > x ? t - 1 : t
    }

    /// Frames per beat at the clock's tempo (its speed left out: the arpeggiator steps
    /// on at the tempo while the transport stands still), at `rate`.
    @_noLocks @inline(__always)
    public func framesPerBeat(rate: Double) -> Double { 60 * rate / max(bpm, 1) }
}
