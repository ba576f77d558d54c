import BendControl
import BendEvdev
import BendInstrument
import BendPeers
import BendSystem
import Dispatch
import Foundation
import Glibc
import Synchronization

/// `bendsynth remote TARGET`: the local pad (or a touch script) plays an instrument on
/// another machine (`bendsynth play --listen`). Touch downs and ups go reliably, moves and
/// tilt unreliably (UDP; the newest move wins).
enum RemoteCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("key-file", value: "FILE", help: "the instrument's shared key (needed unless it listens on loopback without one); the instrument must prove it too"),
        OptionSpec("name", value: "NAME", help: "name shown to the instrument (default: user@host; 1…64 UTF-8 bytes)"),
        OptionSpec("script", value: "FILE.jsonl", help: "play a touch script to the instrument instead of the pad, then leave"),
        OptionSpec("text", value: "MESSAGE", help: "send a text message once connected (the instrument shows it)"),
        OptionSpec("timeout", value: "SECONDS", help: "connect and handshake timeout (default 3; over Bluetooth 35: the instrument's player answers)"),
        OptionSpec("retry-for", value: "S", help: "after the link drops, connect again for up to S seconds, waiting 0.25 s doubling to 8 s (0…3600, default 60; 0: leave at once)"),
        OptionSpec("monitor", help: "also sound here: the pad's touches play the local output too (as bendsynth play)"),
        OptionSpec("device", "d", value: "PCM", help: "with --monitor: ALSA playback PCM (default 'default')"),
        OptionSpec("record", value: "FILE.wav", help: "with --monitor: also record the local sound"),
        OptionSpec("overwrite", help: "with --record: let the recording replace an existing file (default: a new numbered name, e.g. take-1.wav)"),
    ] + EvdevOptions.deviceSpecs + EvdevOptions.mappingSpecs + SoundOptions.specs + [OptionSpec("help", "h", help: "show this help")]

    static let usage = """
    usage: bendsynth remote HOST[:PORT]|PORT|NAME [--key-file FILE] [--script FILE.jsonl] [options]

    Plays the instrument on HOST (bendsynth play --listen) from the pad in this terminal.
    NAME is an instrument's name as bendsynth peers lists it (heard within --timeout).
    The status line shows the connection, the round-trip time and the instrument's xruns.
    Local sound is off. / types a text message (Enter sends it); q or Ctrl-C leaves.
    When the link drops it connects again (--retry-for); touches still held start again.
    --evdev devices play the instrument too (beside the pad or the script).

    """

    struct Options {
        var target = ""
        var keyFile: String?
        var name: String?
        var script: String?
        var text: String?
        var timeout = 3.0
        /// `--retry-for`: seconds to keep reconnecting after a drop (0: leave at once).
        var retryFor = 60.0
        /// `--monitor`: the local output's settings (nil: no local sound).
        var monitor: PlayCommand.Options?
        /// `--evdev`: local input devices also play the instrument.
        var evdev = EvdevOptions()
        /// The pad's layout and guides (`--pitch-map`, `--scale`); the instrument plays
        /// the raw positions with its own settings.
        var sound = SoundOptions()
    }

    static func run(_ arguments: [String]) throws {
        let (parsed, operands) = try parse(arguments, specs: specs + ConfigFile.specs)
        var o = Options()
        var local = PlayCommand.Options(), monitor = false
        for (name, value) in parsed {
            if try local.sound.apply(name, value) { continue }
            if try o.evdev.apply(name, value) { continue }
            switch name {
            case "monitor": monitor = true
            case "device": local.device = value ?? ""
            case "record": local.record = value
            case "overwrite": local.overwrite = true
            case "help":
                print(CommandTable.help("remote"))
                return
            case "key-file": o.keyFile = value
            case "name": o.name = try OptionValues.peerName(value, option: name)
            case "retry-for": o.retryFor = try OptionValues.number(value, option: name, in: 0...3600)
            case "script": o.script = value
            case "text": o.text = value
            case "timeout": o.timeout = Double(try OptionValues.integer(value, option: name, in: 1...60))
            default: break
            }
        }
        try local.sound.validate()
        try o.evdev.validate()
        local.inputs = OutputPath.inputs(options: parsed, operands: [], specs: specs, outputs: ["record"])
        o.sound = local.sound
        if monitor {
            StopSignals.block()  // before the session's thread starts: SIGINT/SIGTERM go to play's one waiter
            o.monitor = local
        } else if local.record != nil || parsed.contains(where: { $0.0 == "device" }) {
            throw AppError.usage("remote: --device and --record are for the local sound; add --monitor")
        }
        guard operands.count == 1 else {
            throw AppError.usage(operands.isEmpty ? "remote: which instrument? give HOST[:PORT]" : "remote: unexpected argument '\(operands[1])'")
        }
        o.target = operands[0]
        if BluetoothAddress.looksLike(o.target), !parsed.contains(where: { $0.0 == "timeout" }) {
            o.timeout = 35   // the instrument's player may be asked (30 s invitation timeout)
        }
        if case .bluetooth = RemoteTarget.classify(o.target), let why = BluetoothAddress.unavailableReason() {
            throw AppError.runtime("remote: \(why)")
        }
        let script: TouchScript?
        do { script = try o.script.map { try TouchScript.load(path: $0) } } catch { throw AppError.input("\(error)") }
        let key: SharedKey?
        do { key = try o.keyFile.map { try SharedKey.load(path: $0) } } catch { throw AppError.input("\(error)") }
        if let keyFile = o.keyFile { warnIfOpenToOthers(keyFile, what: "the shared key") }
        guard script != nil || isatty(STDIN_FILENO) == 1 else {
            throw AppError.usage("remote: standard input is not a terminal; the pad is played from a terminal, or give --script")
        }
        let target = RemoteTarget.classify(o.target)
        if case .name = target, case .tcp(let address) = try target.resolved(seconds: o.timeout) {
            printErr("bendsynth: '\(o.target)' is \(address)")
            o.target = address
        } else if case .tcp(let address) = target {
            o.target = address
        }
        try play(o, key: key, script: script)
    }

    static func play(_ o: Options, key: SharedKey?, script: TouchScript?) throws {
        // $USER, else the account's name (USER is unset under su, sudo -i, systemd units).
        let user = ProcessInfo.processInfo.environment["USER"] ?? getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "player"
        var config = PeerSession.Configuration(displayName: o.name ?? "\(user)@\(ProcessInfo.processInfo.hostName)", role: .client)
        config.key = key
        let bluetooth = BluetoothAddress.looksLike(o.target)
        let session: PeerSession
        do { session = try PeerSession(configuration: config, transport: bluetooth ? RFCOMMTransport() as PeerTransport : TCPTransport()) } catch {
            throw AppError.runtime("remote: cannot play '\(o.target)': \(error)")
        }
        let link = RemoteLink(session: session, target: o.target, timeout: o.timeout, retryFor: o.retryFor)
        let finished = DispatchSemaphore(value: 0)
        let monitored = Mutex<RemoteMonitorSource?>(nil)
        let notices = PadNotices(fallback: { printErr("bendsynth: " + $0) })  // on the pad while it is drawn, stderr otherwise
        link.notice = { notices.post($0) }
        link.onEnd = { why in
            monitored.withLock { $0 }?.instrumentLeft(why)
            finished.signal()
        }
        session.onReceive = { message, peer in
            if case .text(let t) = message { notices.post("message from \(peer.shownName): \(UntrustedText.escaped(t))") }
        }
        let peer: PeerInfo
        do {
            peer = try link.connect()
        } catch let e as PeerError {
            session.stop()
            if case .address = e { throw AppError.usage("remote: \(e)") }
            throw AppError.runtime("remote: cannot play '\(o.target)': \(e)")
        }
        defer { link.stop(); session.stop() }
        printErr("bendsynth: connected to \(peer)")
        if let text = o.text { session.send(.text(text)) }
        if let local = o.monitor {
            let source = RemoteMonitorSource(link: link, script: script, notices: notices)
            monitored.withLock { $0 = source }
            if let why = link.ended { source.instrumentLeft(why) }
            // Devices sound here (their own port) and go to the instrument too.
            let devices: [SourceSettings] = o.evdev.devices.isEmpty ? []
                : [.source(EvdevSource(devices: o.evdev.devices, mapping: o.evdev.mapping, grab: o.evdev.grab, forward: { link.forward($0) },
                                       note: { printErr("bendsynth: \($0)") }))]
            try PlayCommand.play(local, sources: [.source(source)] + devices)
            if let why = link.ended { throw AppError.runtime("remote: \(why)") }
            if script != nil {
                link.leave()
                printErr("bendsynth: played \(script!.entries.count) events to \(peer.shownName), monitored here")
            }
            return
        }
        let devices = try startDevices(o.evdev, forward: { link.forward($0) })
        defer { devices?.stop() }
        if let script {
            let played = DispatchSemaphore(value: 0)
            let whole = Atomic<Bool>(false)
            link.play(script) { done in
                whole.store(done, ordering: .relaxed)
                played.signal()
            }
            played.wait()
            if !whole.load(ordering: .relaxed) { throw AppError.runtime("remote: \(link.ended ?? "stopped")") }
            link.leave()
            printErr("bendsynth: played \(script.entries.count) events to \(peer.shownName)")
            return
        }
        let pad = try RemotePad(link: link, pitchMap: o.sound.pitchMap, tuning: o.sound.tuning, monitor: nil, notices: notices,
                                onEvent: { link.forward($0) }, onFinish: { finished.signal() })
        signal(SIGHUP, SIG_IGN)
        try pad.start()
        finished.wait()
        pad.stop()
        if let why = link.ended { throw AppError.runtime("remote: \(why)") }
    }

    /// `--evdev` without `--monitor`: the devices' events go to the instrument alone.
    /// `readers`: inputs opened by the caller (tests: a pipe), read beside the devices.
    /// - Throws: `AppError` as `EvdevSource.start`.
    static func startDevices(_ options: EvdevOptions, forward: @escaping @Sendable (ControlEvent) -> Void, readers: [EvdevReader] = []) throws -> EvdevSource? {
        guard !options.devices.isEmpty || !readers.isEmpty else { return nil }
        let source = EvdevSource(devices: options.devices, mapping: options.mapping, grab: options.grab, note: { printErr("bendsynth: \($0)") })
        source.extraReaders = readers
        try source.startLoop { events in for e in events { forward(e) } }
        return source
    }
}
