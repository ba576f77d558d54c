// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEvdev
import BendInput
import BendMIDI
import BendOSC
import BendPeers
import BendSystem
import BendWeb

/// Makes the input sources a `LiveSettings` asks for, and joins those that work together:
/// peers' messages and Bluetooth invitations show on the terminal pad while it is drawn
/// (`PadNotices`, `InvitationPrompt`: y/n at the pad), and go to the log otherwise.
struct SourceFactory {
    /// One line for the player (stderr in the app, without the "bendsynth: " prefix).
    let log: @Sendable (String) -> Void
    /// A line shown as it is (the web pad's address and QR code).
    let show: @Sendable (String) -> Void

    /// A source made, with the observers of its port it brings along.
    struct Made {
        var source: InputSource
        var observers: [ControlEventObserver]
    }

    /// - Parameter jack: the output is a JACK client (`midiIn` is then JACK's port).
    /// - Throws: `InstrumentError`: `.input` for a bad key file; `.runtime` where Bluetooth
    ///   or the ALSA sequencer cannot be used.
    func make(_ settings: [SourceSettings], sound: SoundSettings, jack: Bool) throws -> [Made] {
        let terminal = settings.first { $0.isTerminal }
        var pad = PadSettings()
        if case .terminal(let p)? = terminal { pad = p }
        let notices = pad.notices ?? PadNotices(fallback: log)  // peers' messages go on the pad, not over it
        var prompt: InvitationPrompt?
        var made: [Made] = []
        for s in settings {
            switch s {
            case .terminal:
                continue  // made last: it shows the others' prompts and notices
            case let .script(name, script):
                made.append(Made(source: ScriptSource(name: name, script: script), observers: []))
            case let .evdev(devices, mapping, grab):
                made.append(Made(source: EvdevSource(devices: devices, mapping: mapping, grab: grab, note: log), observers: []))
            case let .peers(address, keyFile, name):
                let peers = PeerSource(listening: address, key: try key(keyFile, address: address))
                peers.instrumentName = name
                peers.log = log
                peers.notices = notices
                made.append(Made(source: peers, observers: []))
            case let .bluetooth(admission, name):
                if let why = BluetoothAddress.unavailableReason() { throw InstrumentError(.runtime, "play: \(why)") }
                let asker = terminal != nil ? InvitationPrompt() : nil
                prompt = asker
                let peers = PeerSource(bluetoothChannel: "", admission: admission, prompt: asker, instrumentName: name)
                peers.log = log
                peers.notices = notices
                made.append(Made(source: peers, observers: []))
            case let .osc(address, tcp, timeout, restTimeout):
                made.append(Made(source: OSCSource(address: address, tcp: tcp, timeout: timeout, restTimeout: restTimeout, log: log), observers: []))
            case .midiIn:
                if jack {
                    let midi = JACKMIDIInSource(keys: sound.keys)
                    midi.log = log
                    made.append(Made(source: midi, observers: []))
                } else {
                    let midi = try ALSASeqMIDISource(keys: sound.keys, clientName: "bendsynth")
                    midi.log = log
                    made.append(Made(source: midi, observers: []))
                }
            case let .web(web, address):
                made.append(Made(source: WebSource(web, log: log, show: show, address: address), observers: []))
            case let .source(source, observers):
                made.append(Made(source: source, observers: observers))
            }
        }
        if terminal != nil {
            var filter = pad.filter
            var deviceLine = pad.deviceLine
            if let prompt {
                let keyboard = RemoteKeyboard(onText: { _ in }, textLine: false, intercept: { prompt.key($0) })
                filter = { keyboard.filter($0) }
                deviceLine = { prompt.line }
            }
            let source = TerminalSource(filter: filter, deviceLine: deviceLine, notice: { notices.current() },
                                        shown: { notices.padShown($0) })
            // In the order asked for: its place decides its source number.
            let at = settings.prefix { !$0.isTerminal }.count
            made.insert(Made(source: source, observers: pad.observers), at: at)
        }
        return made
    }

    /// The shared key of a TCP listener: the file given, else (off loopback) the default
    /// one, made and printed on first use; none on loopback without a file.
    /// - Throws: `InstrumentError(.input)` for a key file that does not load.
    func key(_ keyFile: String?, address: SocketAddress) throws -> SharedKey? {
        if let keyFile {
            do {
                let k = try SharedKey.load(path: keyFile)
                warnIfOpenToOthers(keyFile)
                return k
            } catch { throw InstrumentError(.input, "\(error)") }
        }
        guard !address.isLoopback else { return nil }
        let path = SharedKey.defaultPath
        do {
            let (k, created) = try SharedKey.loadOrCreate(path: path)
            if created {
                log("made a shared key in '\(path)'; give it to the players who may connect (remote --key-file):\n\(k.hex)")
            }
            warnIfOpenToOthers(path)
            return k
        } catch { throw InstrumentError(.input, "\(error)") }
    }

    /// Warns when the shared key's file can be read by others.
    private func warnIfOpenToOthers(_ path: String) {
        if let why = InputFile.openToOthers(path) { log("warning: the shared key '\(path)' \(why)") }
    }
}
