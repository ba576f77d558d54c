// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendInstrument
import BendWeb
import Synchronization

/// The pad's settings, from the control ports (`PluginPort`: pitch map, octaves, scale
/// root, rounding and its time, the tone note): the same meanings as play's --pitch-map,
/// --octaves, --scale-root, --round, --round-rate, made into pitches by the same rule
/// (`SoundSettings.choosePitch`).
struct WebPadSettings: Equatable {
    var toneNote: Double = 69
    /// 0 auto (the default, `SoundDefaults.exponential`), 1 linear, 2 exponential.
    var pitchMap = 0
    var octaves = 2.0
    /// Hz; 0: the tone's pitch.
    var scaleRoot = 0.0
    /// 0 off, 1 initial, 2 hold (`round(of:)`; the default `SoundDefaults.padRounding`).
    var round = WebPadSettings.round(of: SoundDefaults.padRounding)
    /// Seconds.
    var roundRate = 0.08

    /// The `round` port's value for rounding `mode`: 0 off, 1 initial, 2 hold.
    @_noLocks
    static func round(of mode: PitchRounding.Mode) -> Int {
        switch mode {
        case .off: 0
        case .initial: 1
        case .hold: 2
        }
    }

    /// `base` with the pad's pitch map, scale at its root (an `.ascl`'s own, `keys`, while
    /// the root port is 0), rounding and tone note.
    func pitch(_ base: SoundSettings, scale: Scale?, keys: KeyboardMap? = nil) -> SoundSettings {
        var s = base
        s.toneNote = toneNote
        s.choosePitch(scale: scale, scaleRootHz: scaleRoot > 0 ? scaleRoot : nil, keyboardMap: scaleRoot > 0 ? nil : keys,
                      exponential: pitchMap == 2 || (pitchMap == 0 && SoundDefaults.exponential), octaves: octaves,
                      roundMode: round == 2 ? .hold : round == 1 ? .initial : .off, roundRate: roundRate)
        return s
    }
}

/// The phone pad inside the plugin: bendsynth's web pad (`SourceSettings.web`, made by the
/// core as `play --web`'s) in a slot of the instrument core reserved at instantiate, its
/// touches' MPE to the host (`InstrumentCore.mpeOut`). Started, stopped and served again
/// (new pad settings, a new scale) by the worker while the host plays: one
/// `InstrumentCore.restart` each time. The pairing token stays for the instance's life,
/// so a phone paired once stays paired across restarts. The pairing address goes to the
/// log and to the instance's own file (`PadAddressFile`, mode 0600), found at the pad's
/// first start, never in `instantiate` (Ardour 7 aborts when a plugin asks it for a path
/// there). The port: the one saved in the session's state when it is free, else the
/// default (47880), else any free one; the port taken is what the state saves next.
/// - Thread: the host's worker (one call at a time), and cleanup; `padPort` from any thread.
final class WebPad {
    let core: InstrumentCore
    /// The pad's slot, reserved at instantiate (slots are set up before render).
    let slot: InstrumentCore.SlotID
    let log: LV2Log
    let assets: String
    /// Where the pairing address goes: asked for at the first start (`PadAddressFile`).
    private let addressFile: PadAddressFile
    let token = WebToken.random()
    /// The pad's port (0: none yet): the one a restored session asks for, tried first,
    /// then the one it was last served on — what state:save keeps, served or not.
    let padPort = Atomic<UInt16>(0)
    private(set) var settings: WebPadSettings?

    init(core: InstrumentCore, log: LV2Log, assets: String, addressFile: PadAddressFile) {
        self.core = core
        slot = core.reserve()
        self.log = log
        self.assets = assets
        self.addressFile = addressFile
    }

    /// Serves the pad with `settings` (stopping a pad already served); logs why not.
    func start(_ settings: WebPadSettings, scale: Scale?, keys: KeyboardMap? = nil) {
        stop()
        let pitch = settings.pitch(core.sound, scale: scale, keys: keys)
        var web = WebSource.Settings(address: WebListenAddress(host: "0.0.0.0", port: WebListenAddress.defaultPort), assets: assets)  // the certificate: play's ($XDG_CONFIG_HOME/bendsynth)
        web.token = token
        web.showsQRCode = false
        let log = self.log
        // The address is logged once, here (show's copy of it would be a second line).
        let address: @Sendable (String) -> Void = { url in log.note("web pad address: \(url)") }
        // The session's port, the default, or any free one (another instance, or play, has it).
        var failure = ""
        let preferred = padPort.load(ordering: .relaxed)
        for p in (preferred != 0 && preferred != WebListenAddress.defaultPort ? [preferred] : []) + [WebListenAddress.defaultPort, 0] {
            web.address.port = p
            do {
                guard let made = try core.makeSources([.web(web, address: address)]).first else { continue }
                let started = try core.restart(slot, with: made.source, pitch: pitch,
                                               observers: made.observers + [core.mpeOut(toneNote: pitch.toneNote, pitchMap: pitch.pitchMap)])
                guard let pad = started as? WebSource, let bound = pad.boundPort, let url = pad.url else { continue }
                padPort.store(bound, ordering: .relaxed)
                addressFile.write(url, port: bound)
                self.settings = settings
                return
            } catch {
                failure = "\(error)"
            }
        }
        log.error("web pad: \(failure)")
    }

    /// Stops serving: every phone's connection closes and every touch it started ends.
    func stop() {
        guard settings != nil else { return }
        core.stop(slot)
        settings = nil
    }

    /// True while the pad is served.
    var isRunning: Bool { settings != nil }

    /// cleanup: stops serving and removes a pairing file of the user's state folder (a
    /// host's own folder is the host's to keep or remove).
    func end() {
        stop()
        addressFile.remove()
    }
}
