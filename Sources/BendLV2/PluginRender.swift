import BendAudio
import CLV2

/// The render thread's half of the plugin: what `connect_port` and `run` touch. Plain
/// values and pointers made in `instantiate`, no class reference, so `run` does no
/// reference counting, takes no lock and allocates nothing (`@_noLocks`, checked in
/// release builds).
///
/// `run` is the render thread (LV2's Audio threading class): it calls the same period
/// step as the ALSA and JACK sinks (`RenderDriver.period`), in steps of at most the
/// mixer's period bound, straight into the host's two output buffers
/// (`PeriodBuffer.planar`, JACK's layout).
struct PluginRender {
    /// The host's port buffers by `PluginPort` index (`connect_port`); nil until
    /// connected. Control ports point at one Float each. Owner: render.
    let ports: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// The period step. Owner: render (the instrument is the plugin's).
    let driver: RenderDriver
    /// Interleaved stereo float scratch, 2 × `bound` samples.
    let scratch: UnsafeMutablePointer<Float>
    /// The mixer's period bound, frames: a longer `run` is rendered in steps of at most
    /// this many.
    let bound: Int
    /// What the latency port reports, frames: the mixer's `latencyFrames`.
    let latencyFrames: Float

    /// - Thread: setup (instantiate).
    init(driver: RenderDriver, bound: Int) {
        latencyFrames = Float(driver.mixer.latencyFrames)
        ports = .allocate(capacity: PluginPort.count)
        ports.initialize(repeating: nil, count: PluginPort.count)
        self.driver = driver
        self.bound = bound
        scratch = .allocate(capacity: 2 * bound)
        scratch.initialize(repeating: 0, count: 2 * bound)
    }

    /// - Thread: setup (cleanup).
    func deallocate() {
        ports.deallocate()
        scratch.deallocate()
    }

    /// `connect_port`: the host's buffer for `port` (it may change between `run` calls).
    /// - Thread: render (or setup, before `activate`).
    @_noLocks
    func connect(port: UInt32, to data: UnsafeMutableRawPointer?) {
        guard Int(port) < PluginPort.count else { return }
        ports[Int(port)] = data
    }

    /// `run`: `frames` frames (any count the host gives, 0 included) into the two outputs.
    /// - Thread: render.
    @_noLocks
    func run(frames: Int) {
        guard let l = ports[PluginPort.left], let r = ports[PluginPort.right] else { return }
        let left = l.assumingMemoryBound(to: Float.self)
        let right = r.assumingMemoryBound(to: Float.self)
        if let latency = ports[PluginPort.latency] {
            latency.assumingMemoryBound(to: Float.self).pointee = latencyFrames
        }
        var done = 0
        while done < frames {
            let n = min(bound, frames - done)
            _ = driver.period(frames: n, into: .planar(left: left + done, right: right + done, scratch: scratch))
            done += n
        }
    }
}
