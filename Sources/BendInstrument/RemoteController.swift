// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEvdev
import BendPeers
import BendSystem
import Foundation
import Glibc
import Synchronization

/// `remote`, assembled: a client `PeerSession` and its `RemoteLink` (reconnects, replays
/// held touches), and what plays it: the remote's pad (`RemotePad`), a touch script
/// (`RemoteLink.play`), input devices — or, with `monitor`, a `PlaySession` whose
/// sources (`RemoteMonitorSource`, the devices) sound here and go to the instrument too.
/// - Thread: setup (the command's thread: `run` blocks until the remote ends).
public enum RemoteController {
    /// Why a remote ended before its end (the link gave up, was declined, or its
    /// instrument left): the front end's exit status 1.
    public struct Ended: Error, CustomStringConvertible {
        public var description: String
    }

    /// Connects, plays until the pad quits, the script ends or the link ends for good.
    /// - Parameters:
    ///   - log: one line for the player (without the "bendsynth: " prefix).
    ///   - show: a line as it is (the local instrument's).
    /// - Throws: `UsageError` for a bad address; `InstrumentError` when the first
    ///   connect, the session, the pad or the local instrument fails; `Ended` when the
    ///   link ended for good first.
    public static func run(_ settings: RemoteSettings, log: @escaping @Sendable (String) -> Void,
                           show: @escaping @Sendable (String) -> Void) throws {
        // $USER, else the account's name (USER is unset under su, sudo -i, systemd units).
        let user = ProcessInfo.processInfo.environment["USER"] ?? getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "player"
        var config = PeerSession.Configuration(displayName: settings.name ?? "\(user)@\(ProcessInfo.processInfo.hostName)", role: .client)
        config.key = settings.key
        // The pad (no --monitor, no --script) owns the terminal: SIGINT, SIGTERM and SIGHUP
        // then end it as `q` does, so the terminal is given back as it was found. Masked
        // before any thread starts (the session's, the devices'); `--monitor` is play's.
        let padPlays = settings.monitor == nil && settings.script == nil
        if padPlays { StopSignals.block() }
        let finished: Wakeup
        do { finished = try Wakeup("remote") } catch {
            throw InstrumentError(.runtime, "remote: \(error)")
        }
        let bluetooth = BluetoothAddress.looksLike(settings.target)
        let session: PeerSession
        do { session = try PeerSession(configuration: config, transport: bluetooth ? RFCOMMTransport() as PeerTransport : TCPTransport()) } catch {
            throw InstrumentError(.runtime, "remote: cannot play '\(settings.target)': \(error)")
        }
        let link = RemoteLink(session: session, target: settings.target, timeout: settings.timeout, retryFor: settings.retryFor)
        let monitored = Mutex<RemoteMonitorSource?>(nil)
        let notices = PadNotices(fallback: log)  // on the pad while it is drawn, the log otherwise
        link.notice = { notices.post($0) }
        link.onEnd = { why in
            monitored.withLock { $0 }?.instrumentLeft(why)
            finished.signal()
        }
        session.onReceive = { message, peer in
            if case .text(let t) = message { notices.post("message from \(peer.shownName): \(UntrustedText.escaped(t))") }
        }
        let peer: PeerInfo
        do { peer = try link.connect() } catch {
            session.stop()
            if case PeerError.address = error { throw UsageError("remote: \(error)") }
            throw InstrumentError(.runtime, "remote: cannot play '\(settings.target)': \(error)")
        }
        defer { link.stop(); session.stop() }
        log("connected to \(peer)")
        if let text = settings.text { session.send(.text(text)) }
        let script = settings.script, devices = settings.devices
        if var local = settings.monitor {
            let source = RemoteMonitorSource(link: link, script: script, notices: notices)
            monitored.withLock { $0 = source }
            if let why = link.ended { source.instrumentLeft(why) }
            // Devices sound here (their own port) and go to the instrument too.
            local.sources = [.source(source)] + (devices.paths.isEmpty ? []
                : [.source(EvdevSource(devices: devices.paths, mapping: devices.mapping, grab: devices.grab, forward: { link.forward($0) },
                                       note: log))])
            try PlaySession(local, log: log, show: show).run()
            if let why = link.ended { throw Ended(description: "remote: \(why)") }
            if let script {
                link.leave()
                log("played \(script.entries.count) events to \(peer.shownName), monitored here")
            }
            return
        }
        let evdev = try startDevices(paths: devices.paths, mapping: devices.mapping, grab: devices.grab, log: log) { link.forward($0) }
        defer { evdev?.stop() }
        if let script { return try play(script, link: link, to: peer, log: log) }
        let pad = try RemotePad(link: link, pitchMap: settings.pitchMap, tuning: settings.tuning, monitor: nil, notices: notices,
                                onEvent: { link.forward($0) }, onFinish: { finished.signal() })
        StopSignals.wait { _ in finished.signal() }
        try pad.start()
        finished.wait()
        pad.stop()
        if let why = link.ended { throw Ended(description: "remote: \(why)") }
    }

    /// `--script` without `--monitor`: the script to the instrument, then leave.
    /// - Throws: `Ended` when the link ended before the script did.
    private static func play(_ script: TouchScript, link: RemoteLink, to peer: PeerInfo, log: @escaping @Sendable (String) -> Void) throws {
        let played: Wakeup
        do { played = try Wakeup("remote script") } catch {
            throw InstrumentError(.runtime, "remote: \(error)")
        }
        let whole = Atomic<Bool>(false)
        link.play(script) { done in
            whole.store(done, ordering: .relaxed)
            played.signal()
        }
        played.wait()
        if !whole.load(ordering: .relaxed) { throw Ended(description: "remote: \(link.ended ?? "stopped")") }
        link.leave()
        log("played \(script.entries.count) events to \(peer.shownName)")
    }

    /// `--evdev` without `--monitor`: the devices' events go to the instrument alone.
    /// `readers`: inputs opened by the caller (tests: a pipe), read beside the devices.
    /// - Throws: `InstrumentError` as `EvdevSource.startLoop`.
    public static func startDevices(paths: [String], mapping: EvdevMapping, grab: Bool, readers: [EvdevReader] = [],
                                    log: @escaping @Sendable (String) -> Void,
                                    forward: @escaping @Sendable (ControlEvent) -> Void) throws -> EvdevSource? {
        guard !paths.isEmpty || !readers.isEmpty else { return nil }
        let source = EvdevSource(devices: paths, mapping: mapping, grab: grab, note: log)
        source.extraReaders = readers
        try source.startLoop { events in for e in events { forward(e) } }
        return source
    }
}
