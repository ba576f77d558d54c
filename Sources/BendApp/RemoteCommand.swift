import BendControl
import BendInstrument
import BendPeers
import BendSystem
import Foundation
import Glibc

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

    /// The settings `RemoteController` plays: the options, the key and the script read.
    static func play(_ o: Options, key: SharedKey?, script: TouchScript?) throws {
        var settings = RemoteSettings(target: o.target)
        settings.key = key
        settings.name = o.name
        settings.timeout = o.timeout
        settings.retryFor = o.retryFor
        settings.text = o.text
        settings.script = script
        settings.devices = (o.evdev.devices, o.evdev.mapping, o.evdev.grab)
        settings.pitchMap = o.sound.pitchMap
        settings.tuning = o.sound.tuning
        if let local = o.monitor {
            settings.monitor = LiveSettings(sound: local.sound.settings, output: local.output, recordings: local.recordings, sources: [])
        }
        do {
            try RemoteController.run(settings, log: { printErr("bendsynth: " + $0) }, show: { printOwnLineErr($0) })
        } catch let e as PeerError {
            if case .address = e { throw AppError.usage("remote: \(e)") }
            throw AppError.runtime("remote: cannot play '\(o.target)': \(e)")
        } catch let e as RemoteController.Ended {
            throw AppError.runtime(e.description)
        }
    }
}
