// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendEngine
import BendSystem
import BendWeb
import Foundation
import Synchronization

/// The pad's settings, from the control ports (`PluginPort`: pitch map, octaves, scale
/// root, rounding and its time, the tone note) and the scale file in use: the same
/// meanings as play's --pitch-map, --octaves, --scale-root, --round, --round-rate.
struct WebPadSettings: Equatable {
    var toneNote: Double = 69
    /// 0 auto (linear; exponential with a scale), 1 linear, 2 exponential.
    var pitchMap = 0
    var octaves = 2.0
    /// Hz; 0: the tone's pitch.
    var scaleRoot = 0.0
    /// 0 off, 1 initial, 2 hold.
    var round = 0
    /// Seconds.
    var roundRate = 0.08

    var toneHz: Double { KeyboardTuning.hz(ofNote: toneNote) }

    /// The scale at its root; nil without a scale and rounding.
    func tuning(_ scale: Scale?) -> Tuning? {
        guard scale != nil || round != 0 else { return nil }
        let ratio = scaleRoot > 0 ? scaleRoot / toneHz : 1
        return Tuning(scale: scale ?? Scale.builtIn("chromatic")!, rootRatio: ratio, toneNote: toneNote)
    }

    func pitchMap(_ scale: Scale?) -> PitchMap {
        guard pitchMap == 2 || (pitchMap == 0 && scale != nil) else { return .linear }
        let centre = scale != nil ? (tuning(scale)?.rootRatio ?? 1) : 1
        return centre == 1 ? .exponential(octaves: octaves) : .exponentialAround(octaves: octaves, centre: centre)
    }

    func rounding(_ scale: Scale?) -> PitchRounding? {
        guard round != 0, let tuning = tuning(scale) else { return nil }
        return PitchRounding(mode: round == 2 ? .hold : .initial, rate: roundRate, tuning: tuning)
    }
}

/// What the pad may show of the output: the plugin's own line (no xruns it could know).
final class PluginOutputStatus: OutputStatus, @unchecked Sendable {
    let description: String
    let xruns = 0
    let failureDescription: String? = nil
    init(rate: Double) { description = "LV2 plugin at \(Int(rate)) Hz" }
}

/// The phone pad inside the plugin: bendsynth's web pad server (`WebSource`, as `play
/// --web` and the assembly's source factory make it) on a port of the instrument's, its
/// touches' MPE to the output (`PluginMPEOut`). Started, stopped and restarted (new pad
/// settings, a new scale) by the worker while the host plays — so on an engine source
/// taken at instantiate that each start's port takes over (`HostedInstrument.start`
/// adds ports, which only setup may) — the pairing token stays for the instance's life,
/// so a phone paired once stays paired across restarts. The pairing address goes to the
/// log and to the instance's own file (`PadAddressFile`, mode 0600), found at the pad's
/// first start, never in `instantiate` (Ardour 7 aborts when a plugin asks it for a path
/// there). The port: the one saved in the session's state when it is free, else the
/// default (47880), else any free one; the port taken is what the state saves next.
/// - Thread: the host's worker (one call at a time), and cleanup; `padPort` from any thread.
final class WebPad {
    let instrument: Instrument
    /// The pad's engine source, taken at instantiate (sources are set up before render).
    let source: (index: UInt32, ring: SPSCRing<EngineEvent>)
    let mpe: SPSCRing<MIDIPacket>
    let log: LV2Log
    let assets: String
    /// Where the pairing address goes: asked for at the first start (`PadAddressFile`).
    private let addressFile: PadAddressFile
    let token = WebToken.random()
    /// The pad's port (0: none yet): the one a restored session asks for, tried first,
    /// then the one it was last served on — what state:save keeps, served or not.
    let padPort = Atomic<UInt16>(0)
    private var running: (source: WebSource, port: ControlPort, ticker: RoundingTicker?)?
    private(set) var settings: WebPadSettings?

    init(instrument: Instrument, mpe: SPSCRing<MIDIPacket>, log: LV2Log, assets: String, addressFile: PadAddressFile) {
        self.instrument = instrument
        source = instrument.mixer.addSource()
        self.mpe = mpe
        self.log = log
        self.assets = assets
        self.addressFile = addressFile
    }


    /// Serves the pad with `settings` (stopping a pad already served); logs why not.
    func start(_ settings: WebPadSettings, scale: Scale?) {
        stop()
        let mixer = instrument.mixer, clock = instrument.clock
        let pitchMap = settings.pitchMap(scale), tuning = settings.tuning(scale)
        let out = PluginMPEOut(ring: mpe, toneNote: settings.toneNote, pitchMap: pitchMap)
        let port = ControlPort(mixer: mixer, source: source, pitchMap: pitchMap, rounding: settings.rounding(scale), clock: clock, observers: [out])
        out.configure(atFrame: clock?.stamp(nanos: MonotonicClock.nanos()) ?? mixer.position)
        var web = WebSource.Settings(address: WebListenAddress(host: "0.0.0.0", port: WebListenAddress.defaultPort), assets: assets)  // the certificate: play's ($XDG_CONFIG_HOME/bendsynth)
        web.token = token
        web.showsQRCode = false
        var context = InputContext(meters: InstrumentMeters(mixer: mixer), output: PluginOutputStatus(rate: mixer.configuration.rate),
                                   pitchMap: pitchMap, rate: mixer.configuration.rate, tuning: tuning)
        context.toneNote = settings.toneNote
        let log = self.log
        let say: @Sendable (String) -> Void = { log.note("web pad: \($0)") }
        let address: @Sendable (String) -> Void = { url in log.note("web pad address: \(url)") }
        // The session's port, the default, or any free one (another instance, or play, has it).
        var started: WebSource?
        var failure = ""
        let preferred = padPort.load(ordering: .relaxed)
        for p in (preferred != 0 && preferred != WebListenAddress.defaultPort ? [preferred] : []) + [WebListenAddress.defaultPort, 0] {
            web.address.port = p
            // The address is logged once, by `address` (show's copy of it would be a second line).
            let candidate = WebSource(web, log: say, show: { _ in }, address: address)
            do {
                try candidate.start(port: port, context: context) {}
                started = candidate
                break
            } catch {
                failure = "\(error)"
            }
        }
        guard let started, let bound = started.boundPort, let url = started.url else {
            log.error("web pad: \(failure)")
            port.releaseAll()
            return
        }
        padPort.store(bound, ordering: .relaxed)
        addressFile.write(url, port: bound)
        var ticker: RoundingTicker?
        if port.needsTicks {
            do {
                let t = try RoundingTicker(ports: [port])
                try t.start()
                ticker = t
            } catch {
                log.warning("web pad: the rounding ticker did not start (\(error)); resting touches are not drawn onto their steps")
            }
        }
        running = (started, port, ticker)
        self.settings = settings
    }

    /// Stops serving: every phone's connection closes and every touch it started ends.
    func stop() {
        guard let r = running else { return }
        r.ticker?.stop()
        r.source.stop()
        r.port.releaseAll()
        running = nil
        settings = nil
    }

    /// True while the pad is served.
    var isRunning: Bool { running != nil }

    /// cleanup: stops serving and removes a pairing file of the user's state folder (a
    /// host's own folder is the host's to keep or remove).
    func end() {
        stop()
        addressFile.remove()
    }
}
