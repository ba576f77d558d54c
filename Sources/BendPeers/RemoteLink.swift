// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import Glibc
import Synchronization

/// `remote`'s link to its instrument, beside its `PeerSession`. The first connect is the
/// caller's (`connect`); after a drop — the connection reset or closed, no heartbeat, the
/// instrument gone — it connects again on the session's own I/O loop, with its timers
/// (no thread of its own): it waits from `Backoff.first` (250 ms), doubling to
/// `Backoff.most` (8 s), each attempt a new socket (`PeerSession.connect(to:timeout:then:)`:
/// one attempt, one stream, closed when it fails, so never two open), until it is back
/// or `retryFor` seconds have passed since the drop: then it ends with one line saying
/// why. A decline that will not change (wrong key, other version, the player said no)
/// ends it at once.
///
/// Local events go through `forward`, which remembers the touches that are down (and
/// the tilt): on reconnect they start again on the instrument as new touches, at their
/// last positions (the instrument ended them when the link dropped).
/// - Thread: `connect`, `stop`, `leave` from the command's thread; `forward` and
///   `status` from any; `notice`, `onEnd`, `onAttemptFailed` are called on the session's loop.
public final class RemoteLink: ControlEventObserver, @unchecked Sendable {
    /// The waits between attempts, in seconds: `first`, doubling up to `most`.
    public struct Backoff: Sendable {
        public var first = 0.25
        public var most = 8.0
        public init(first: Double = 0.25, most: Double = 8.0) { self.first = first; self.most = most }
    }

    public let session: PeerSession
    /// Where to connect (transport syntax).
    public let target: String
    /// Connect and handshake timeout of one attempt, seconds.
    public let timeout: Double
    /// Seconds after a drop to keep trying.
    public let retryFor: Double
    public let backoff: Backoff
    /// A line for the player (reconnecting, reconnected).
    public var notice: @Sendable (String) -> Void = { _ in }
    /// Once, when the link ends for good (gave up, declined) with why. Not after `stop`.
    public var onEnd: @Sendable (String) -> Void = { _ in }
    /// Tests: after each failed attempt, with the number of attempts so far.
    public var onAttemptFailed: @Sendable (Int) -> Void = { _ in }

    private struct Shared {
        /// Connected now (set from the session's `.connected`, cleared on its `.disconnected`).
        var peer: PeerInfo?
        /// The last instrument connected (its name for lines while the link is down).
        var last: PeerInfo?
        /// While down: what happened and when the next attempt is (monotonic ns; 0: now).
        var down: (why: String, attempts: Int, next: UInt64)?
        var ended: String?
        var stopping = false
        /// `leave`: signalled by the instrument's `.disconnected` after our BYE.
        var left: Wakeup?
        /// The reconnect in progress: when the link dropped, its deadline, the next wait.
        var since: UInt64 = 0
        var deadline: UInt64 = 0
        var delay = 0.0
        var timer: EventLoop.Timer?
        /// A script being played (`play`): its next entry's timer and its end.
        var script: (timer: EventLoop.Timer?, done: @Sendable (Bool) -> Void)?
    }
    private let shared = Mutex(Shared())
    /// Touches down now, by the local id: the last event of each (`.down` or `.move`),
    /// and the last tilt. Also serialises `forward` with the replay on reconnect.
    private let held = Mutex<(touches: [UInt32: ControlEvent], tilt: Double?)>(([:], nil))

    public init(session: PeerSession, target: String, timeout: Double, retryFor: Double, backoff: Backoff = Backoff()) {
        self.session = session; self.target = target; self.timeout = timeout; self.retryFor = retryFor; self.backoff = backoff
    }

    /// Connects the first time (a failure here is the caller's: no retry), then watches
    /// the link. Set `notice` and `onEnd` first; `session.onStateChange` is the link's.
    /// - Throws: `PeerError` from the first connect.
    public func connect() throws -> PeerInfo {
        session.onStateChange = { [self] change in changed(change) }
        return try session.connect(to: target, timeout: timeout)
    }

    /// Sends a local event to the instrument (dropped while the link is down) and
    /// remembers the touches that are down. - Thread: any.
    public func forward(_ event: ControlEvent) {
        held.withLock { h in
            switch event {
            case .tilt(let v): h.tilt = v
            case .sustain, .timbre, .send: break
            case .touch(let id, let phase, _, _), .pitched(let id, let phase, _, _, _):
                h.touches[id] = phase == .up ? nil : event
            }
            session.forward(event)
        }
    }

    /// As an observer of a port (`remote --monitor`'s pad): every event the pad plays
    /// here goes to the instrument too. - Thread: the pad's.
    public func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) { forward(event) }

    /// Why the link ended for good, once it did. - Thread: any.
    public var ended: String? { shared.withLock { $0.ended } }

    /// The instrument connected now, nil while the link is down. - Thread: any.
    public var peer: PeerInfo? { shared.withLock { $0.peer } }

    /// The pad's line about the link: connected (with its figures), reconnecting (why,
    /// the attempt, when the next is), or ended. - Thread: any.
    public func status(now: UInt64 = MonotonicClock.nanos()) -> (line: String, link: PeerLinkStatus?) {
        let s = shared.withLock { ($0.last, $0.ended, $0.peer, $0.down) }
        let name = s.0?.shownName ?? target
        if let ended = s.1 { return ("\(name): \(ended)", nil) }
        if let peer = s.2 {
            let link = session.linkStatus(of: peer.id)
            let rtt = link?.roundTrip.map { String(format: "%.1f ms", $0 * 1e3) } ?? "…"
            return ("\(name): connected, RTT \(rtt)", link)
        }
        guard let down = s.3 else { return ("\(name): connecting…", nil) }
        let wait = down.next > now ? String(format: "%.1f s", Double(down.next - now) / 1e9) : "now"
        return ("\(name): reconnecting (\(down.why)); \(down.attempts == 0 ? "first attempt" : "attempt \(down.attempts + 1)") \(wait == "now" ? "now" : "in \(wait)")", nil)
    }

    /// The end of a script: stops reconnecting, says BYE and waits up to `seconds` for
    /// the link to close (nothing to wait for while it is down).
    public func leave(within seconds: Double = 2) {
        // No eventfd left (EMFILE): the BYE still goes, only its close is not waited for.
        let left = try? Wakeup("remote leave")
        let connected = shared.withLock { s -> Bool in
            s.stopping = true
            s.left = left
            return s.peer != nil
        }
        stop()
        guard connected else { return }
        session.disconnectFromAllPeers()
        _ = left?.wait(timeoutNanos: UInt64(max(0, seconds) * 1e9))
    }

    /// Stops reconnecting and a script being played (its `done` says false; the session
    /// is the caller's to stop; an attempt under way ends with it).
    public func stop() {
        let (timer, script) = shared.withLock { s -> (EventLoop.Timer?, (timer: EventLoop.Timer?, done: @Sendable (Bool) -> Void)?) in
            s.stopping = true
            defer { s.timer = nil; s.script = nil }
            return (s.timer, s.script)
        }
        if let timer { session.cancel(timer) }
        if let script {
            if let t = script.timer { session.cancel(t) }
            script.done(false)
        }
    }

    /// Plays `script` to the instrument at its times, from now, on the session's loop
    /// timers (`remote --script`); `local` gets each event too as it is sent (`remote
    /// --monitor --script`: the local port). While the link is down its events are
    /// dropped, as the pad's are, and the touches still held start again on reconnect.
    /// - Parameter done: once, on the loop: true at the script's end; false when it was
    ///   stopped (`stop`) or the link ended for good first.
    /// - Thread: any.
    public func play(_ script: TouchScript, local: (@Sendable (ControlEvent) -> Void)? = nil, done: @escaping @Sendable (Bool) -> Void) {
        let start = MonotonicClock.nanos()
        // The one script player, paced by the monotonic clock: its frames are nanoseconds
        // since `start`, and each entry is sent once the clock reaches it.
        let player = ScriptPlayer(script: script, target: ForwardingScriptTarget { [self] event in
            forward(event)
            local?(event)
        }, rate: 1e9)
        player.start(atFrame: 0)
        @Sendable func step() {
            // Stopped (`stop` said so), the link ended for good, or on.
            let state = shared.withLock { s -> Int in
                guard s.script != nil else { return 0 }
                if s.ended != nil { s.script = nil; return 1 }
                return 2
            }
            if state == 0 { return }
            if state == 1 { return done(false) }
            let now = MonotonicClock.nanos() - start
            player.queue(before: now + 1)
            // The next entry at its time; after the last, the end at once.
            guard let due = player.nextFrame else {
                shared.withLock { $0.script = nil }
                return done(true)
            }
            shared.withLock { s in
                guard s.script != nil else { return }
                s.script!.timer = session.schedule(after: due - min(due, MonotonicClock.nanos() - start), step)
            }
        }
        shared.withLock { s in
            s.script = (nil, done)
            let first = player.nextFrame ?? 0
            s.script!.timer = session.schedule(after: first, step)
        }
    }

    // MARK: - The session's events and the attempts (the session's loop)

    private func changed(_ change: PeerStateChange) {
        switch change.state {
        case .connected:
            shared.withLock { $0.peer = change.peer; $0.last = change.peer; $0.down = nil }
        case .disconnected:
            let why = RemoteFarewell.describe(change)
            let dropped = shared.withLock { s -> Bool in
                guard let peer = s.peer, peer.id == change.peer.id else { return false }
                s.peer = nil
                if s.stopping { s.left?.signal() }
                guard !s.stopping, s.ended == nil else { return false }
                if let reason = change.reason, Self.isFinal(reason) {
                    s.ended = why
                } else if retryFor <= 0 {
                    s.ended = why
                } else {
                    let now = MonotonicClock.nanos()
                    s.since = now
                    s.deadline = now + UInt64(retryFor * 1e9)
                    s.delay = backoff.first
                    s.down = (why, 0, 0)
                }
                return true
            }
            guard dropped else { return }
            if let ended {
                endScript()
                return onEnd(ended)
            }
            notice("link to \(change.peer.shownName) lost: \(why); reconnecting for up to \(Int(retryFor)) s")
            scheduleAttempt()
        default:
            break
        }
    }

    /// Declines and closes that another attempt would only repeat.
    public static func isFinal(_ reason: CloseReason) -> Bool {
        reason == .authenticationFailed || reason == .versionMismatch || reason == .declinedByPolicy
    }

    /// The next attempt after the current wait (the deadline at the latest).
    private func scheduleAttempt() {
        shared.withLock { s in
            guard !s.stopping, s.down != nil else { return }
            let now = MonotonicClock.nanos()
            let next = min(now + UInt64(s.delay * 1e9), s.deadline)
            s.down!.next = next
            s.timer = session.schedule(after: next - min(next, now)) { [self] in attempt() }
        }
    }

    private func attempt() {
        let (go, attempts, left) = shared.withLock { s -> (Bool, Int, Double) in
            s.timer = nil
            guard !s.stopping, s.down != nil else { return (false, 0, 0) }
            s.down!.attempts += 1
            return (true, s.down!.attempts, Double(s.deadline - min(s.deadline, MonotonicClock.nanos())) / 1e9)
        }
        guard go else { return }
        session.connect(to: target, timeout: min(timeout, max(left, 0.25))) { [self] result in
            switch result {
            case .success(let peer):
                let seconds = Double(MonotonicClock.nanos() - shared.withLock { $0.since }) / 1e9
                let restarted = replayHeld()
                notice(String(format: "reconnected to %@ after %.1f s (%d attempt%@)", peer.shownName, seconds, attempts, attempts == 1 ? "" : "s")
                       + (restarted > 0 ? "; \(restarted) held touch\(restarted == 1 ? "" : "es") started again" : ""))
            case .failure(let e):
                if case .stopped = e { return }
                if case .declined(let reason, _) = e, Self.isFinal(reason) { return end("the instrument declined: \(e)") }
                let (expired, why) = shared.withLock { s -> (Bool, String) in
                    if s.down != nil { s.down!.why = "\(e)" }
                    s.delay = min(s.delay * 2, backoff.most)
                    return (MonotonicClock.nanos() >= s.deadline, s.down?.why ?? "")
                }
                onAttemptFailed(attempts)
                if expired {
                    return end(String(format: "gave up reconnecting to %@ after %.0f s (%d attempt%@; the last: %@)",
                                      target, retryFor, attempts, attempts == 1 ? "" : "s", why))
                }
                scheduleAttempt()
            }
        }
    }

    /// The touches still down start again (new touches on the instrument), then the tilt.
    /// - Returns: how many touches.
    private func replayHeld() -> Int {
        held.withLock { h in
            for id in h.touches.keys.sorted() {
                switch h.touches[id]! {
                case let .touch(_, _, x, y): session.forward(.touch(id: id, phase: .down, x: x, y: y))
                case let .pitched(_, _, ratio, gain, y): session.forward(.pitched(id: id, phase: .down, ratio: ratio, gain: gain, y: y))
                case .tilt, .sustain, .timbre, .send: break
                }
            }
            if let t = h.tilt { session.forward(.tilt(t)) }
            return h.touches.count
        }
    }

    private func end(_ why: String) {
        let first = shared.withLock { s -> Bool in
            guard s.ended == nil, !s.stopping else { return false }
            s.ended = why
            return true
        }
        guard first else { return }
        endScript()
        onEnd(why)
    }

    /// The link ended for good: a script being played ends now (not at its next entry).
    private func endScript() {
        let script = shared.withLock { s -> (timer: EventLoop.Timer?, done: @Sendable (Bool) -> Void)? in
            defer { s.script = nil }
            return s.script
        }
        guard let script else { return }
        if let t = script.timer { session.cancel(t) }
        script.done(false)
    }
}
