// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendEngine

/// The tests' one way to render: an offline `Instrument` (mixer, no clock) whose
/// periods go through the render driver's period step, as every sink's do. Events go
/// in either as engine events on a raw ring of the mixer (`ring`, `key`: the engine
/// tests) or as control events through a `ControlPort` (`port`: pad → sound, ALSA);
/// whichever is used first gets source 0.
public final class RenderHarness: @unchecked Sendable {
    public let instrument: Instrument
    /// The region's held table (the tone, for a tone that loops whole).
    public let tone: ToneTable
    /// The region the voices play.
    public let region: SoundRegion
    /// Frames per render call (the last call of `render(frames:…)` may be shorter).
    public let period: Int
    /// Frames per second.
    public let rate: Double
    /// The period step every render goes through.
    public let driver: RenderDriver
    private let pitchMap: PitchMap
    /// The harness frees the region's tables (made from a region, not a caller's sound).
    private let ownsRegion: Bool
    private var raw: (index: UInt32, ring: SPSCRing<EngineEvent>)?
    private var controlPort: ControlPort?

    /// - Parameters:
    ///   - voices: polyphony.
    ///   - period: frames per period (the mixer's period bound).
    ///   - rate: frames per second (of the tone and the output).
    ///   - samples: the tone's loop.
    ///   - pitchMap: what `port` maps x with.
    ///   - levels: the tone's band-limited levels (for `Interpolation.bandLimited`), or nil.
    ///   - configure: changes to the mixer's configuration.
    public convenience init(voices: Int = 64, period: Int = 256, rate: Double = 48_000, tone samples: [Float] = Measure.harmonicTone(),
                levels: ToneLevels? = nil, pitchMap: PitchMap = .linear, configure: (inout MixerConfiguration) -> Void = { _ in }) {
        self.init(voices: voices, period: period, rate: rate, region: SoundRegion(looping: ToneTable(samples: samples, rate: rate, levels: levels)),
                  pitchMap: pitchMap, configure: configure)
    }

    /// A harness whose voices play `region` (the harness frees its tables).
    public convenience init(voices: Int = 64, period: Int = 256, rate: Double = 48_000, region: SoundRegion,
                            pitchMap: PitchMap = .linear, configure: (inout MixerConfiguration) -> Void = { _ in }) {
        self.init(voices: voices, period: period, rate: rate, sound: nil, region: region, pitchMap: pitchMap, configure: configure)
    }

    /// A harness whose voices play `sound` (an instrument's regions; the caller frees it
    /// after the harness).
    public convenience init(voices: Int = 64, period: Int = 256, rate: Double = 48_000, sound: Sound,
                            pitchMap: PitchMap = .linear, configure: (inout MixerConfiguration) -> Void = { _ in }) {
        self.init(voices: voices, period: period, rate: rate, sound: sound, region: sound[0], pitchMap: pitchMap, configure: configure)
    }

    private init(voices: Int, period: Int, rate: Double, sound: Sound?, region: SoundRegion,
                 pitchMap: PitchMap, configure: (inout MixerConfiguration) -> Void) {
        self.region = region
        ownsRegion = sound == nil
        tone = region.held
        var config = MixerConfiguration(rate: rate, maxPeriodFrames: period, voices: voices)
        configure(&config)
        instrument = sound.map { Instrument(configuration: config, sound: $0, live: false) }
            ?? Instrument(configuration: config, region: region, live: false)
        driver = instrument.driver()
        self.period = period
        self.rate = rate
        self.pitchMap = pitchMap
    }

    public var mixer: Mixer { instrument.mixer }

    /// The raw engine source: its index and its event ring (made on first use).
    public var source: UInt32 { rawSource().index }
    public var ring: SPSCRing<EngineEvent> { rawSource().ring }

    private func rawSource() -> (index: UInt32, ring: SPSCRing<EngineEvent>) {
        if let raw { return raw }
        let made = mixer.addSource()
        raw = made
        return made
    }

    /// The control port (clock nil: events carry their frames), made on first use.
    public var port: ControlPort {
        if let controlPort { return controlPort }
        let made = instrument.addPort(pitchMap: pitchMap)
        controlPort = made
        return made
    }

    /// A touch of the raw source.
    public func key(_ id: UInt32) -> TouchKey { TouchKey(source: source, touch: id) }

    /// One period through the driver: pushes the engine events of `events[next...]` due
    /// before the period's end on the raw ring (advancing `next`), then renders `frames`
    /// frames into `out` (2 × frames floats). Allocates nothing.
    public func renderPeriod(into out: UnsafeMutablePointer<Float>, frames: Int,
                             events: UnsafeBufferPointer<EngineEvent>, next: inout Int) {
        let end = mixer.position + UInt64(frames)
        if next < events.count {
            let ring = self.ring
            while next < events.count && events[next].frame < end {
                precondition(ring.push(events[next]))
                next += 1
            }
        }
        _ = driver.period(frames: frames, into: .float(out))
    }

    /// Renders `frames` frames (whole periods, the last one partial), pushing each engine
    /// event before the period that contains it. Returns interleaved stereo.
    public func render(frames: Int, events: [EngineEvent] = []) -> [Float] {
        var out = [Float](repeating: 0, count: 2 * frames)
        events.withUnsafeBufferPointer { ev in
            out.withUnsafeMutableBufferPointer { buffer in
                var next = 0
                var done = 0
                while done < frames {
                    let n = min(period, frames - done)
                    renderPeriod(into: buffer.baseAddress! + 2 * done, frames: n, events: ev, next: &next)
                    done += n
                }
            }
        }
        return out
    }

    /// Sends every control event through `port` at its frame, then renders `frames`
    /// frames. Returns interleaved stereo.
    public func render(_ events: [(frame: UInt64, event: ControlEvent)], frames: Int) -> [Float] {
        for (frame, event) in events { port.send(event, atFrame: frame) }
        return render(frames: frames)
    }

    /// Renders `periods` whole periods. Returns interleaved stereo.
    public func renderPeriods(_ periods: Int) -> [Float] { render(frames: periods * period) }

    /// Frees the instrument and the region's tables.
    public func free() {
        instrument.deallocate()
        guard ownsRegion else { return }
        region.held.deallocate()
        region.release?.deallocate()
    }
}
