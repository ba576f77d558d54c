// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
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
    /// The instrument, as the assembly makes it for a host (tone, engine, render step).
    let hosted: HostedInstrument
    let render: UnsafeMutablePointer<PluginRender>
    /// The files in use (for save and the worker). - Thread: any, under the lock.
    let files = Mutex(PluginFiles())
    /// The worker's answer being written (`WorkMessage`): the host copies it.
    /// - Thread: the host's worker.
    let response: UnsafeMutableRawPointer
    /// The web pad (served by the worker when `web` is on), and its MPE's way to run().
    let webPad: WebPad
    let mpe: SPSCRing<MIDIPacket>
    /// Block length when the host promises none, frames (the largest, 8192).
    static let defaultMaxBlock = 8192

    private init(host: LV2Host, log: LV2Log, bundle: String, rate: Double, hosted: HostedInstrument, bound: Int) {
        self.host = host
        self.log = log
        self.bundle = bundle
        self.rate = rate
        self.hosted = hosted
        let mixer = hosted.instrument.mixer
        let (source, ring) = mixer.addSource()
        mpe = SPSCRing<MIDIPacket>(capacity: 8192)
        // No host feature but the URID map and the log is called here (PadAddressFile).
        webPad = WebPad(instrument: hosted.instrument, mpe: mpe, log: log, assets: bundle + "web", addressFile: PadAddressFile(host: host, log: log))
        render = .allocate(capacity: 1)
        render.initialize(to: PluginRender(driver: hosted.driver, bound: bound,
                                           gate: TouchGate(source: source, ring: ring), urids: PluginURIDs(host), schedule: host.schedule,
                                           mpe: mpe))
        render.pointee.setTonePath(hosted.tone.path)
        response = .allocate(byteCount: WorkMessage.responseHeader + WorkMessage.tuningBytes + WorkMessage.maximumPath, alignment: 16)
    }

    /// `instantiate`: nil (the host reports a failure) without `urid:map`, at a rate
    /// outside 8000…768000 Hz, or when the default tone does not load; each logged. The
    /// instrument is the assembly's `HostedInstrument`, from `SoundSettings` at the app's
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
        let hosted: HostedInstrument
        do {
            hosted = try HostedInstrument(sound: sound, rate: rate, maxBlock: bound, assets: [String(folder.dropLast())],
                                          log: { log.note($0) }, show: { log.note($0) })
        } catch {
            log.error("\(error)")
            return nil
        }
        let plugin = LV2Plugin(host: host, log: log, bundle: folder, rate: rate, hosted: hosted, bound: bound)
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
    func activate() { render.pointee.reset() }
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
        plugin.hosted.deallocate()
        plugin.mpe.deallocate()
        instance.deallocate()
    }
}
