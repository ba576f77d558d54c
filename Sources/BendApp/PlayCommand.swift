// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendInstrument
import BendPeers
import BendSystem
import Foundation
import Glibc

/// `bendsynth play`: the instrument. A pad in the terminal, voices mixed by the render
/// thread and written to ALSA; optionally recorded to WAV and to a touch script.
enum PlayCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("device", "d", value: "PCM", help: "ALSA playback PCM, as in 'aplay -D' (default 'default'); see 'bendsynth devices'"),
        OptionSpec("period", value: "FRAMES", help: "ALSA period in frames (16…8192, default 256)"),
        OptionSpec("periods", value: "N", help: "periods in the ALSA buffer (2…16, default 3)"),
        OptionSpec("record", value: "FILE.wav", help: "also write exactly what is played, in the format of the name's extension as render -o does (.wav float32, .flac, .ogg, .aiff, .caf)"),
        OptionSpec("record-touches", value: "FILE.jsonl", help: "also write every touch and tilt as a touch script: the take, timed from the recording's start like --record's WAV"),
        OptionSpec("record-midi", value: "FILE.mid", help: "also write every touch and tilt as MPE into a Standard MIDI File"),
        OptionSpec("overwrite", help: "let the recordings replace existing files (default: the take goes to new numbered names, e.g. take-1.wav, and play says so)"),
        OptionSpec("script", value: "FILE", help: "play a touch script (.jsonl) or a MIDI file (by its MThd header) live (an input source; standard input need not be a terminal)"),
        OptionSpec("listen", value: "[ADDR][:PORT]", help: "also play touches from other machines (bendsynth remote); bare --listen: loopback, port 47810; no ADDR: loopback only; [IPv6]:PORT too; other addresses need the shared key; the next word is its value only when it is an address or port (a host name: --listen=NAME)"),
        OptionSpec("key-file", value: "FILE", help: "shared key every remote must prove, on loopback too (off loopback the default is made on first use in $XDG_CONFIG_HOME/bendsynth/key)"),
        OptionSpec("name", value: "NAME", help: "with --listen or --bluetooth: the name remotes see and bendsynth peers lists (default 'bendsynth on HOST'; 1…64 UTF-8 bytes)"),
        OptionSpec("bluetooth", help: "also accept remote players over Bluetooth (registers the bendsynth profile with bluetoothd; answers pairing requests)"),
        OptionSpec("allow", value: "ADDR[,ADDR]", help: "with --bluetooth: these Bluetooth addresses may pair and play without asking"),
        OptionSpec("accept-all", help: "with --bluetooth: anyone in range may pair and play without asking"),
        OptionSpec("load-stats", help: "at the end, print the render thread's load per period (median, p99, max) and when the first period was written"),
        OptionSpec("no-terminal", help: "do not use the terminal as an input source (needs another source, e.g. --script)"),
    ] + AudioDriverOptions.specs + EvdevOptions.deviceSpecs + EvdevOptions.mappingSpecs + OSCOptions.specs + WebOptions.specs + SoundOptions.specs + [OptionSpec("help", "h", help: "show this help")]

    static let usage = """
    usage: bendsynth play [-a alsa|jack] [--device PCM] [--record FILE.wav] [options]

    Draws a pad in the terminal. Press and drag the mouse, or hold letter keys, to
    play; x bends the pitch, y sets the gain; ←/→ tilt the pan; q or Ctrl-C quits.
    When no ALSA device opens and --record is given, it plays into the file only.

    """

    struct Options {
        var sound = SoundOptions()
        var audio = AudioDriverOptions()
        var device = "default"
        var period = 256
        var periods = 3
        var record: String?
        var recordTouches: String?
        var recordMIDI: String?
        var script: String?
        var terminal = true
        var loadStats = false
        var evdev = EvdevOptions()
        var listen: String?
        var keyFile: String?
        /// `--name`: what remotes see and `peers` lists (nil: "bendsynth on HOST").
        var name: String?
        var osc = OSCOptions()
        var web = WebOptions()
        var bluetooth = false
        var bluetoothAdmission = BluetoothAdmission()
        /// `--overwrite`: recordings replace existing files.
        var overwrite = false
    }

    static func run(_ arguments: [String]) throws {
        StopSignals.block()  // before any source makes a thread
        let (parsed, operands) = try OptionParser.parse(arguments, specs: specs + CommandTable.configSpecs)
        var o = Options()
        for (name, value) in parsed {
            if try o.sound.apply(name, value) { continue }
            if try o.evdev.apply(name, value) { continue }
            if try o.osc.apply(name, value) { continue }
            if try o.audio.apply(name, value) { continue }
            if o.web.apply(name, value) { continue }
            switch name {
            case "help":
                print(CommandTable.help("play"))
                return
            case "device": o.device = value ?? ""
            case "period": o.period = try OptionValue.integer(value, option: name, in: 16...8192)
            case "periods": o.periods = try OptionValue.integer(value, option: name, in: 2...16)
            case "record": o.record = value
            case "record-touches": o.recordTouches = value
            case "record-midi": o.recordMIDI = value
            case "overwrite": o.overwrite = true
            case "script": o.script = value
            case "no-terminal": o.terminal = false
            case "load-stats": o.loadStats = true
            case "listen": o.listen = value ?? ""
            case "key-file": o.keyFile = value
            case "name": o.name = try OptionValues.peerName(value, option: name)
            case "bluetooth": o.bluetooth = true
            case "allow": try o.bluetoothAdmission.allow(value ?? "")
            case "accept-all": o.bluetoothAdmission.acceptAll = true
            default: break
            }
        }
        try o.sound.validate()
        try o.evdev.validate()
        try o.audio.validate()
        guard operands.isEmpty else {
            // A bare --listen/--web takes only an address or port from the next word.
            let hint = arguments.contains("--listen") || arguments.contains("--web")
                ? " (a host name after --listen or --web goes with '=': --listen=\(operands[0]))" : ""
            throw AppError.usage("play: unexpected argument '\(operands[0])'\(hint)")
        }
        // Before a source reads its files (the key, the certificate).
        try o.recordings.check(command: "play", standardOutput: "standard output is the terminal's; name a file (take.wav, take.flac…)",
                               inputs: OutputPath.inputs(options: parsed, operands: [], specs: specs,
                                                         outputs: ["record", "record-touches", "record-midi"], implicit: o.defaultFilesRead))
        if o.sound.tempo.source == .midiFile {
            throw AppError.usage("play: --tempo-source midi-file is render's (a MIDI file's tempo map); play follows --bpm")
        }
        try o.sound.resolveRoot()  // before MIDI sources and scripts read toneNote
        var sources: [SourceSettings] = []
        if let path = o.script {
            sources.append(.script(name: "script '\(path)'", try ScriptFile.load(path: path, keys: o.sound.keyboardTuning, warn: warn)))
        }
        if !o.evdev.devices.isEmpty { sources.append(.evdev(devices: o.evdev.devices, mapping: o.evdev.mapping, grab: o.evdev.grab)) }
        if let listen = o.listen {
            sources.append(.peers(address: try PeerOptions.address(listen), keyFile: o.keyFile, name: o.name))
        } else if o.name != nil && !o.bluetooth {
            throw AppError.usage("play: --name is the name remotes over --listen or --bluetooth see; add one of them")
        }
        if !o.bluetooth, o.bluetoothAdmission != BluetoothAdmission() {
            throw AppError.usage("play: --allow and --accept-all are for Bluetooth players; add --bluetooth")
        }
        if o.bluetooth { sources.append(.bluetooth(admission: o.bluetoothAdmission, name: o.name)) }
        if let osc = try o.osc.settings() { sources.append(osc) }
        if o.audio.midiIn { sources.append(.midiIn) }
        if let web = try o.web.settings() { sources.append(.web(web, address: o.web.addressOnStandardOutput(!o.terminal))) }
        if o.terminal {
            guard isatty(STDIN_FILENO) == 1 else {
                if sources.isEmpty {
                    throw AppError.usage("play: standard input is not a terminal; the pad is played from a terminal (run bendsynth in one) or give another input source (--script, --evdev, --listen, --osc, --midi-in, --web)")
                }
                throw AppError.usage("play: standard input is not a terminal; add --no-terminal to play from the other sources alone")
            }
            sources.append(.terminal())
        } else if sources.isEmpty {
            throw AppError.usage("play: --no-terminal leaves no input source; give one (--script, --evdev, --listen, --osc, --midi-in, --web)")
        }
        try play(LiveSettings(sound: o.sound.settings, output: o.output, recordings: o.recordings, sources: sources))
    }

    /// Plays live (`play`, and `replay` without an output file): the instrument assembly
    /// (`PlaySession`) does the rest. - Throws: `AppError` with the exit status.
    static func play(_ settings: LiveSettings) throws {
        try PlaySession(settings, log: { printErr("bendsynth: " + $0) }, show: { printOwnLineErr($0) },
                           deviceReport: { ALSADevices.report() }).run()
    }
}

extension PlayCommand.Options {
    /// Where the sound and MIDI go.
    var output: OutputSettings {
        var out = OutputSettings(driver: audio.driver == .jack ? .jack(name: audio.jackName, connect: audio.jackConnect)
                                                               : .alsa(device: device, periodFrames: period, periods: periods))
        out.midiOut = audio.midiOut
        out.loadStats = loadStats
        return out
    }

    /// The take's files.
    var recordings: Recordings { Recordings(sound: record, touches: recordTouches, midi: recordMIDI, overwrite: overwrite) }

    /// Files play may read that no option names (`Installation.implicitInputs`).
    var defaultFilesRead: [(what: String, path: String)] {
        Installation.implicitInputs(defaultKey: listen != nil && keyFile == nil, defaultCertificate: web.listen != nil && web.certificate == nil,
                                    webAssets: web.listen == nil ? nil : Installation.webAssets)
    }
}
