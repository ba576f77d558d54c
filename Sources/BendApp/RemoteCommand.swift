// SPDX-License-Identifier: GPL-3.0-or-later
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

    static func run(_ arguments: [String]) throws {
        let (parsed, operands) = try OptionParser.parse(arguments, specs: specs + CommandTable.configSpecs)
        // The local sound's options (used with --monitor): ALSA at play's defaults.
        var sound = SoundOptions(), device = "default", record: String?, overwrite = false
        var monitor = false, evdev = EvdevOptions()
        var keyFile: String?, script: String?
        var s = RemoteSettings(target: "")
        for (name, value) in parsed {
            if try sound.apply(name, value) { continue }
            if try evdev.apply(name, value) { continue }
            switch name {
            case "monitor": monitor = true
            case "device": device = value ?? ""
            case "record": record = value
            case "overwrite": overwrite = true
            case "help":
                print(CommandTable.help("remote"))
                return
            case "key-file": keyFile = value
            case "name": s.name = try OptionValues.peerName(value, option: name)
            case "retry-for": s.retryFor = try OptionValue.number(value, option: name, in: 0...3600)
            case "script": script = value
            case "text": s.text = value
            case "timeout": s.timeout = Double(try OptionValue.integer(value, option: name, in: 1...60))
            default: break
            }
        }
        try sound.validate()
        try evdev.validate()
        if monitor {
            StopSignals.block()  // before the session's thread starts: SIGINT/SIGTERM go to play's one waiter
            // The take's name and format checked before connecting, as play checks them.
            let recordings = Recordings(sound: record, overwrite: overwrite)
            try recordings.check(command: "remote", standardOutput: "the local sound is recorded to a file, not to standard output; name one (take.wav, take.flac…)",
                                       inputs: OutputPath.inputs(options: parsed, operands: [], specs: specs, outputs: ["record"]))
            s.monitor = LiveSettings(sound: sound.settings, output: OutputSettings(driver: .alsa(device: device, periodFrames: 256, periods: 3)),
                                     recordings: recordings, sources: [])
        } else if record != nil || parsed.contains(where: { $0.0 == "device" }) {
            throw AppError.usage("remote: --device and --record are for the local sound; add --monitor")
        }
        guard operands.count == 1 else {
            throw AppError.usage(operands.isEmpty ? "remote: which instrument? give HOST[:PORT]" : "remote: unexpected argument '\(operands[1])'")
        }
        s.target = operands[0]
        if BluetoothAddress.looksLike(s.target), !parsed.contains(where: { $0.0 == "timeout" }) {
            s.timeout = 35   // the instrument's player may be asked (30 s invitation timeout)
        }
        try s.load(scriptPath: script, keyFile: keyFile, warn: { printErr("bendsynth: warning: \($0)") })
        guard s.script != nil || isatty(STDIN_FILENO) == 1 else {
            throw AppError.usage("remote: standard input is not a terminal; the pad is played from a terminal, or give --script")
        }
        try s.resolveTarget(say: { printErr("bendsynth: \($0)") })
        s.devices = (evdev.devices, evdev.mapping, evdev.grab)
        // The pad's layout and guides (`--pitch-map`, `--scale`); the instrument plays
        // the raw positions with its own settings.
        s.pitchMap = sound.pitchMap
        s.tuning = sound.tuning
        try RemoteController.run(s, log: { printErr("bendsynth: " + $0) }, show: { printOwnLineErr($0) })
    }
}
