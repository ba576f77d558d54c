// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import BendSystem
import Glibc

/// The instrument every command and test plays: the mixer, the stream clock (live
/// only), one `ControlPort` per input source, the render driver that every sink calls,
/// and the fade-out on stop. `play`, `replay`, `render` (through BendInstrument's `OfflineRenderer`),
/// `bench` and the tests' render harness all build one, so they all sound alike.
///
/// Layer: audio out (BendAudio). It joins control's ports to the render driver the
/// sinks call, and the fade-out waits on a running sink; control may not see the
/// driver or the sinks (it sits below audio out), and the engine sees neither ports
/// nor sinks. Inputs never see it: they get a `ControlPort` from the app's wiring.
///
/// Owns the mixer and the clock (`deallocate()` frees them), not the tone.
public final class Instrument: @unchecked Sendable {
    /// The engine. - Thread: setup makes it; the render thread renders it.
    public let mixer: Mixer
    /// Maps control threads' monotonic time to stream frames; nil offline (events carry
    /// their frames).
    public let clock: StreamClock?
    /// The input ports, in the order they were added (their source indices 0, 1, …,
    /// unless the mixer's sources were also taken directly).
    public private(set) var ports: [ControlPort] = []

    /// - Parameters:
    ///   - configuration: the mixer's rate, period bound (the sink's period, frames)
    ///     and polyphony.
    ///   - tone: the loop every voice plays; the caller keeps it alive and frees it.
    ///   - live: true for a real-time sink: a stream clock (stamping latency one
    ///     period of `configuration.maxPeriodFrames`) stamps live events.
    /// - Thread: setup.
    public convenience init(configuration: MixerConfiguration, tone: ToneTable, live: Bool) {
        self.init(configuration: configuration, region: SoundRegion(looping: tone), live: live)
    }

    /// An instrument playing a sound region (a tone with its loop points, stereo, pan).
    /// The caller keeps the region's tables alive and frees them. - Thread: setup.
    public init(configuration: MixerConfiguration, region: SoundRegion, live: Bool) {
        mixer = Mixer(configuration: configuration, region: region)
        clock = live ? StreamClock(rate: configuration.rate, periodFrames: configuration.maxPeriodFrames) : nil
    }

    /// An instrument playing `sound` (a tone's region, or an instrument's regions). The
    /// caller keeps the sound alive and frees it after `deallocate` (or when the mixer
    /// gives it back, `Mixer.takeRetired`). - Thread: setup.
    public init(configuration: MixerConfiguration, sound: Sound, live: Bool) {
        mixer = Mixer(configuration: configuration, sound: sound)
        clock = live ? StreamClock(rate: configuration.rate, periodFrames: configuration.maxPeriodFrames) : nil
    }

    /// Output rate, frames per second.
    public var rate: Double { mixer.configuration.rate }
    /// The longest period a sink may ask for, frames.
    public var periodFrames: Int { mixer.configuration.maxPeriodFrames }

    /// An engine source of its own (an event ring: one producer thread at a time), for
    /// ports made on it later (`ControlPort(mixer:source:)`: one after another, as a
    /// source restarts) or a host's render-thread events (`TouchGate`).
    /// - Thread: setup.
    public func reserveSource() -> (index: UInt32, ring: SPSCRing<EngineEvent>) { mixer.addSource() }

    /// A new input port (its own event ring in the mixer: one producer thread).
    /// - Thread: setup.
    @discardableResult
    public func addPort(pitchMap: PitchMap, rounding: PitchRounding? = nil, observers: [ControlEventObserver] = []) -> ControlPort {
        let port = ControlPort(mixer: mixer, pitchMap: pitchMap, rounding: rounding, clock: clock, observers: observers)
        ports.append(port)
        return port
    }

    /// The render driver for a sink: this mixer and clock, recording into `record`.
    /// - Thread: setup.
    public func driver(record: SPSCRing<Float>? = nil) -> RenderDriver {
        RenderDriver(mixer: mixer, clock: clock, record: record)
    }

    /// How long play's stop fades the send effects' tail, seconds.
    public static let tailFadeSeconds = 0.3

    /// Events dropped because a port's ring was full, over all ports. - Thread: any.
    public var dropped: Int { ports.reduce(0) { $0 + $1.dropped } }

    /// Ends play gently while a real-time sink still renders: every port's touches end
    /// (voices fade with the normal release), then this waits until no voice sounds
    /// (200 ms, or the release time and 10 % when longer, at most 10 s) and one more
    /// period has been rendered, so the last fade is played whole; a send effect's tail
    /// still sounding is then faded out over `tailFadeSeconds`. Returns early when
    /// `rendering` turns false (the sink failed).
    /// Call it after the sources stopped (the ports' threads are done).
    /// - Thread: setup (the thread that started the sink).
    public func fadeOut(rendering: () -> Bool) {
        ports.forEach { $0.releaseAll() }
        let fadeSeconds = min(max(0.2, 1.1 * mixer.longestReleaseSeconds), 10)
        let fadeDeadline = MonotonicClock.nanos() + UInt64(fadeSeconds * 1e9)
        // "No voice sounds" and "a period was rendered" become true on the render thread,
        // which makes no system calls and so cannot signal a Wakeup: this thread re-checks
        // them once a period (nothing changes between two periods) until a deadline.
        let period = UInt64(Double(periodFrames) / rate * 1e9)
        _ = Wakeup.recheck("fade out", until: { mixer.activeVoices == 0 || !rendering() }, every: period, deadline: fadeDeadline)
        // The send effects' tail (a reverb, echoes) still sounding: faded out over
        // `tailFadeSeconds` by the master gain, so the stop does not cut it with a click.
        if mixer.effectsTail > 1e-4 && rendering() {
            mixer.fadeOutMix(seconds: Instrument.tailFadeSeconds)
            let faded = mixer.position + UInt64(Instrument.tailFadeSeconds * rate) + UInt64(periodFrames)
            _ = Wakeup.recheck("fade out", until: { mixer.position >= faded || !rendering() }, every: period,
                               deadline: MonotonicClock.nanos() + UInt64((Instrument.tailFadeSeconds + 1) * 1e9))
        }
        // One more period so the last fade is written out whole.
        let settle = mixer.position + UInt64(periodFrames)
        _ = Wakeup.recheck("fade out", until: { mixer.position >= settle || !rendering() }, every: period / 2,
                           deadline: fadeDeadline + 100_000_000)
    }

    /// Frees the mixer and the clock. Call once, after every sink stopped.
    /// - Thread: setup.
    public func deallocate() {
        mixer.deallocate()
        clock?.deallocate()
    }
}
