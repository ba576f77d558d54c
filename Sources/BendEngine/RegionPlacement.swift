// SPDX-License-Identifier: GPL-3.0-or-later
/// Where a region of a `Sound` plays: the pitches and touch gains it is chosen for, how
/// it is tuned and how loud it is, its own envelope, its place in a round robin, and its
/// neighbours for a bend across zones (`ZoneCrossfade.swift`). A plain tone's one region
/// plays everywhere (`anywhere`). Made by the loader (an SFZ `<region>`'s key and
/// velocity ranges, `pitch_keycenter`, `tune`, `transpose`, `volume`, `ampeg_*`,
/// `seq_length`/`seq_position`), at the output rate; immutable after.
///
/// Pitches are voice ratios (`EngineEvent.value`: 1 = the sound's reference note, the
/// note a plain tone sounds as recorded); gains are the touch's linear gain at its start
/// (y for the pads, velocity/127 for MIDI).
public struct RegionPlacement: Sendable, BitwiseCopyable {
    /// A touch starts on this region when its ratio is in `ratioLow ..< ratioHigh` and its
    /// gain in `gainLow ..< gainHigh` (and the round robin's turn is this region's).
    public var ratioLow: Float
    public var ratioHigh: Float
    public var gainLow: Float
    public var gainHigh: Float
    /// A voice on this region stays on it while its pitch is in `stayLow ..< stayHigh`
    /// (the range widened by the hysteresis, so a finger resting on a zone's edge does not
    /// cross back and forth); past it, it crosses to the neighbour holding its pitch.
    public var stayLow: Float
    public var stayHigh: Float
    /// The region's playback rate per unit of voice ratio (tone frames per output frame
    /// at ratio 1): 2^((reference − keycenter + transpose)/12 + tune/1200).
    public var pitchScale: Float
    /// The region's level, linear gain (SFZ `volume`), times the touch's.
    public var gain: Float
    /// The region's envelope at the output rate, or nil: the mixer's (`MixerConfiguration`).
    public var envelope: Envelope?
    /// Round robin: the region plays every `sequenceLength`-th time a touch could start
    /// on it, at turn `sequencePosition` (0-based; SFZ `seq_position` − 1).
    public var sequenceLength: UInt32
    public var sequencePosition: UInt32
    /// The regions of the same layer (gain range, round robin turn) next below and above
    /// in pitch (indices in the sound; −1: none), and the correlation of this region's
    /// signal with theirs at the aligned phase (−1…1, `CrossfadeLaw`).
    public var below: Int32
    public var above: Int32
    public var correlationBelow: Float
    public var correlationAbove: Float
    /// The region's pitch period in its sound frames at the output rate (0: unknown, no
    /// phase alignment), and a sound frame where its cycle starts (phase 0), chosen so that
    /// the cycles of neighbouring regions line up (`ZoneCrossfade.swift`).
    public var cycleFrames: Double
    public var cycleAnchor: Double

    /// Everywhere, at its own pitch and level, the mixer's envelope, no neighbours.
    public static var anywhere: RegionPlacement {
        RegionPlacement(ratioLow: 0, ratioHigh: .infinity, gainLow: 0, gainHigh: .infinity, stayLow: 0, stayHigh: .infinity,
                        pitchScale: 1, gain: 1, envelope: nil, sequenceLength: 1, sequencePosition: 0, below: -1, above: -1,
                        correlationBelow: 0, correlationAbove: 0, cycleFrames: 0, cycleAnchor: 0)
    }

    public init(ratioLow: Float, ratioHigh: Float, gainLow: Float, gainHigh: Float, stayLow: Float, stayHigh: Float, pitchScale: Float,
                gain: Float, envelope: Envelope?, sequenceLength: UInt32, sequencePosition: UInt32, below: Int32, above: Int32,
                correlationBelow: Float, correlationAbove: Float, cycleFrames: Double, cycleAnchor: Double) {
        self.ratioLow = ratioLow
        self.ratioHigh = ratioHigh
        self.gainLow = gainLow
        self.gainHigh = gainHigh
        self.stayLow = min(stayLow, ratioLow)
        self.stayHigh = max(stayHigh, ratioHigh)
        self.pitchScale = pitchScale.isFinite && pitchScale > 0 ? pitchScale : 1
        self.gain = gain.isFinite ? max(gain, 0) : 1
        self.envelope = envelope
        self.sequenceLength = max(sequenceLength, 1)
        self.sequencePosition = sequencePosition % max(sequenceLength, 1)
        self.below = below
        self.above = above
        self.correlationBelow = correlationBelow
        self.correlationAbove = correlationAbove
        self.cycleFrames = cycleFrames
        self.cycleAnchor = cycleAnchor
    }

    /// Whether a touch of `ratio` and `gain` may start here (before the round robin).
    @_noLocks @inline(__always)
    func holds(ratio: Float, gain: Float) -> Bool {
        ratio >= ratioLow && ratio < ratioHigh && gain >= gainLow && gain < gainHigh
    }

    /// Whether a voice on this region at `ratio` stays on it.
    @_noLocks @inline(__always)
    func keeps(ratio: Float) -> Bool { ratio >= stayLow && ratio < stayHigh }

    /// Whether the region is tied to a pitch range (a zone of several).
    var zoned: Bool { @_noLocks @inline(__always) get { below >= 0 || above >= 0 } }
}
