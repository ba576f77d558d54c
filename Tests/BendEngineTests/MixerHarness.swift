import BendEngine
import BendTestSupport

/// Renders a Mixer offline with events pushed at given frames.
struct MixerHarness {
    let mixer: Mixer
    let ring: SPSCRing<EngineEvent>
    let source: UInt32
    let tone: ToneTable
    let period: Int
    let rate: Double

    init(voices: Int = 64, period: Int = 256, rate: Double = 48_000, tone samples: [Float] = Measure.harmonicTone(),
         configure: (inout MixerConfiguration) -> Void = { _ in }) {
        tone = ToneTable(samples: samples, rate: rate)
        var config = MixerConfiguration(rate: rate, maxPeriodFrames: period, voices: voices)
        configure(&config)
        mixer = Mixer(configuration: config, tone: tone)
        (source, ring) = mixer.addSource()
        self.period = period
        self.rate = rate
    }

    func key(_ id: UInt32) -> TouchKey { TouchKey(source: source, touch: id) }

    /// Renders `frames` frames (whole periods, the last one partial), pushing each event
    /// before the period that contains it. Returns interleaved stereo.
    func render(frames: Int, events: [EngineEvent]) -> [Float] {
        var out = [Float](repeating: 0, count: 2 * frames)
        var pending = events[...]
        var done = 0
        out.withUnsafeMutableBufferPointer { buffer in
            while done < frames {
                let n = min(period, frames - done)
                let end = mixer.position + UInt64(n)
                while let e = pending.first, e.frame < end {
                    precondition(ring.push(e))
                    pending = pending.dropFirst()
                }
                mixer.render(into: buffer.baseAddress! + 2 * done, frames: n)
                done += n
            }
        }
        return out
    }

    func free() {
        mixer.deallocate()
        tone.deallocate()
    }
}
