// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendInstrument
import CLV2
import Foundation
import Synchronization

/// What the host's `LV2_Handle` points to: the render half (`connect_port`, `run`) and
/// the setup half (everything else).
struct LV2Instance {
    let render: UnsafeMutablePointer<PluginRender>
    let plugin: Unmanaged<LV2Plugin>
}

/// One instance of the plugin, the setup half: the host's features, the instrument, and
/// the calls of LV2's Instantiation class (instantiate, activate, deactivate, cleanup).
/// - Thread: setup (never the render thread; `run` sees only `PluginRender`).
final class LV2Plugin {
    let host: LV2Host
    let log: LV2Log
    /// The bundle's folder (the default tone and the web pad's page are in it).
    let bundle: String
    let rate: Double
    /// The instrument core (tone, engine, ports, the host's render face): the plugin is a
    /// shell over it.
    let core: InstrumentCore
    let render: UnsafeMutablePointer<PluginRender>
    /// The files in use (for save and the worker). - Thread: any, under the lock.
    let files = Mutex(PluginFiles())
    /// The worker's answer being written (`WorkMessage`): the host copies it.
    /// - Thread: the host's worker.
    let response: UnsafeMutableRawPointer
    /// The web pad (served by the worker when `web` is on, in a slot of the core's).
    let webPad: WebPad
    /// Block length when the host promises none, frames (the largest, 8192).
    static let defaultMaxBlock = 8192

    private init(host: LV2Host, log: LV2Log, bundle: String, rate: Double, core: InstrumentCore) {
        self.host = host
        self.log = log
        self.bundle = bundle
        self.rate = rate
        self.core = core
        // No host feature but the URID map and the log is called here (PadAddressFile).
        webPad = WebPad(core: core, log: log, assets: bundle + "web", addressFile: PadAddressFile(host: host, log: log))
        render = .allocate(capacity: 1)
        render.initialize(to: PluginRender(host: core.hostRender, urids: PluginURIDs(host), schedule: host.schedule))
        render.pointee.setTonePath(core.tone.path)
        response = .allocate(byteCount: WorkMessage.responseHeader + WorkMessage.tuningBytes + WorkMessage.maximumPath, alignment: 16)
    }

    /// `instantiate`: nil (the host reports a failure) without `urid:map`, at a rate
    /// outside 8000…768000 Hz, or when the default tone does not load; each logged. The
    /// instrument is an `InstrumentCore`, from `SoundSettings` at the app's
    /// defaults (band-limited, the limiter on, 0 dB, the bundle's tone) with 1024 voices
    /// (the `voices` port limits them, 64 by default): the control ports change the mix
    /// bus, the voice limit and the interpreter while it plays.
    static func instantiate(rate: Double, bundle: String, features: UnsafePointer<UnsafePointer<LV2_Feature>?>?) -> LV2_Handle? {
        guard let host = LV2Host(features) else {
            LV2Log.standardError("bendsynth: the host gave no urid:map; cannot instantiate\n")
            return nil
        }
        let log = LV2Log(host)
        guard rate >= 8000 && rate <= 768_000 else {
            log.error("sample rate \(rate) Hz: 8000…768000 Hz expected")
            return nil
        }
        let folder = bundle.hasSuffix("/") ? bundle : bundle + "/"
        // Blocks up to the host's promise (buf-size.h), else 8192; longer ones in steps.
        let bound = min(max(host.maxBlockLength ?? defaultMaxBlock, 1), defaultMaxBlock)
        // Voices for the `voices` port's maximum: the port limits them while playing.
        var sound = SoundSettings()
        sound.voices = PluginPort.maximumVoices
        // The gain port's default from the start: its first block does not glide to it.
        sound.gain = Float(pow(10, SoundDefaults.gainDB / 20))
        let core: InstrumentCore
        do {
            core = try InstrumentCore.load(sound: sound, rate: rate, periodFrames: bound, output: OutputLine("LV2 plugin at \(Int(rate)) Hz"),  // what the pad may show: no xruns it could know
                                           assets: [String(folder.dropLast())], log: { log.note($0) }, show: { _ in })  // the pad logs its address itself (WebPad)
        } catch {
            log.error("\(error)")
            return nil
        }
        let plugin = LV2Plugin(host: host, log: log, bundle: folder, rate: rate, core: core)
        let instance = UnsafeMutablePointer<LV2Instance>.allocate(capacity: 1)
        instance.initialize(to: LV2Instance(render: plugin.render, plugin: Unmanaged.passRetained(plugin)))
        return LV2_Handle(instance)
    }

    /// The render half of `handle`. - Thread: render.
    @_noLocks @inline(__always)
    static func render(_ handle: LV2_Handle?) -> UnsafeMutablePointer<PluginRender> {
        handle.unsafelyUnwrapped.assumingMemoryBound(to: LV2Instance.self).pointee.render
    }

    /// The setup half of `handle`. - Thread: setup.
    static func from(_ handle: LV2_Handle?) -> LV2Plugin {
        handle.unsafelyUnwrapped.assumingMemoryBound(to: LV2Instance.self).pointee.plugin.takeUnretainedValue()
    }

    /// `activate`: a fresh start (LV2: the plugin resets its state); every note ends.
    func activate() { render.pointee.host.releaseAll() }
    func deactivate() {}

    /// `cleanup`: frees everything the instance made.
    static func cleanup(_ handle: LV2_Handle?) {
        guard let handle else { return }
        let instance = handle.assumingMemoryBound(to: LV2Instance.self)
        let plugin = instance.pointee.plugin.takeRetainedValue()
        plugin.webPad.end()
        plugin.render.pointee.deallocate()
        plugin.render.deallocate()
        plugin.response.deallocate()
        plugin.core.deallocate()
        instance.deallocate()
    }
}
