import BendControl
import BendPeers
import BendSystem
import Dispatch
import Glibc
import Synchronization

/// `remote`'s link to its instrument. The first connect is the caller's (`connect`);
/// after a drop — the connection reset or closed, no heartbeat, the instrument gone —
/// it connects again on its own thread: waits from `Backoff.first` (250 ms), doubling to
/// `Backoff.most` (8 s), each attempt a new socket (`PeerSession.connect`: one attempt,
/// one stream, closed when it fails, so never two open), until it is back or
/// `retryFor` seconds have passed since the drop: then it ends with one line saying why.
/// A decline that will not change (wrong key, other version, the player said no) ends it
/// at once.
///
/// Local events go through `forward`, which remembers the touches that are down (and
/// the tilt): on reconnect they start again on the instrument as new touches, at their
/// last positions (the instrument ended them when the link dropped).
/// - Thread: `connect`, `stop` from the command's thread; `forward` and `status` from any.
final class RemoteLink: @unchecked Sendable {
    /// The waits between attempts, in seconds: `first`, doubling up to `most`.
    struct Backoff: Sendable {
        var first = 0.25
        var most = 8.0
    }

    let session: PeerSession
    /// Where to connect (transport syntax).
    let target: String
    /// Connect and handshake timeout of one attempt, seconds.
    let timeout: Double
    /// Seconds after a drop to keep trying.
    let retryFor: Double
    let backoff: Backoff
    /// A line for the player (reconnecting, reconnected). - Thread: the link's threads.
    var notice: @Sendable (String) -> Void = { _ in }
    /// Once, when the link ends for good (gave up, declined) with why. Not after `stop`.
    var onEnd: @Sendable (String) -> Void = { _ in }
    /// Tests: after each failed attempt, with the number of attempts so far.
    var onAttemptFailed: @Sendable (Int) -> Void = { _ in }

    private struct Shared {
        /// Connected now (set from the session's `.connected`, cleared on its `.disconnected`).
        var peer: PeerInfo?
        /// The last instrument connected (its name for lines while the link is down).
        var last: PeerInfo?
        /// While down: what happened and when the next attempt is (monotonic ns; 0: now).
        var down: (why: String, attempts: Int, next: UInt64)?
        var ended: String?
        var stopping = false
    }
    private let shared = Mutex(Shared())
    /// Touches down now, by the local id: the last event of each (`.down` or `.move`),
    /// and the last tilt. Also serialises `forward` with the replay on reconnect.
    private let held = Mutex<(touches: [UInt32: ControlEvent], tilt: Double?)>(([:], nil))
    /// A drop or `stop` wakes the reconnecting thread.
    private let wake = DispatchSemaphore(value: 0)
    /// `leave`: the instrument's `.disconnected` after our BYE.
    private let left = DispatchSemaphore(value: 0)
    private var thread: SystemThread?

    init(session: PeerSession, target: String, timeout: Double, retryFor: Double, backoff: Backoff = Backoff()) {
        self.session = session; self.target = target; self.timeout = timeout; self.retryFor = retryFor; self.backoff = backoff
    }

    /// Connects the first time (a failure here is the caller's: no retry), then watches
    /// the link. Set `notice` and `onEnd` first; `session.onStateChange` is the link's.
    /// - Throws: `PeerError` from the first connect; `AppError.runtime` when the
    ///   reconnecting thread cannot start.
    func connect() throws -> PeerInfo {
        session.onStateChange = { [self] change in changed(change) }
        let peer = try session.connect(to: target, timeout: timeout)
        do {
            thread = try SystemThread(name: "bendsynth relink") { [self] in run() }
        } catch {
            throw AppError.runtime("remote: cannot start the reconnecting thread: \(error)")
        }
        return peer
    }

    /// Sends a local event to the instrument (dropped while the link is down) and
    /// remembers the touches that are down. - Thread: any.
    func forward(_ event: ControlEvent) {
        held.withLock { h in
            switch event {
            case .tilt(let v): h.tilt = v
            case .sustain: break
            case .touch(let id, let phase, _, _), .pitched(let id, let phase, _, _, _):
                h.touches[id] = phase == .up ? nil : event
            }
            session.forward(event)
        }
    }

    /// Why the link ended for good, once it did. - Thread: any.
    var ended: String? { shared.withLock { $0.ended } }

    /// The instrument connected now, nil while the link is down. - Thread: any.
    var peer: PeerInfo? { shared.withLock { $0.peer } }

    /// The pad's line about the link: connected (with its figures), reconnecting (why,
    /// the attempt, when the next is), or ended. - Thread: any.
    func status(now: UInt64 = MonotonicClock.nanos()) -> (line: String, link: PeerLinkStatus?) {
        let s = shared.withLock { $0 }
        let name = s.last?.shownName ?? target
        if let ended = s.ended { return ("\(name): \(ended)", nil) }
        if let peer = s.peer {
            let link = session.linkStatus(of: peer.id)
            let rtt = link?.roundTrip.map { String(format: "%.1f ms", $0 * 1e3) } ?? "…"
            return ("\(name): connected, RTT \(rtt)", link)
        }
        guard let down = s.down else { return ("\(name): connecting…", nil) }
        let wait = down.next > now ? String(format: "%.1f s", Double(down.next - now) / 1e9) : "now"
        return ("\(name): reconnecting (\(down.why)); \(down.attempts == 0 ? "first attempt" : "attempt \(down.attempts + 1)") \(wait == "now" ? "now" : "in \(wait)")", nil)
    }

    /// The end of a script: stops reconnecting, says BYE and waits up to `seconds` for
    /// the link to close (nothing to wait for while it is down).
    func leave(within seconds: Double = 2) {
        let connected = shared.withLock { s -> Bool in s.stopping = true; return s.peer != nil }
        stop()
        guard connected else { return }
        session.disconnectFromAllPeers()
        _ = left.wait(timeout: .now() + seconds)
    }

    /// Stops reconnecting and waits for the thread (the session is the caller's to stop).
    func stop() {
        shared.withLock { $0.stopping = true }
        wake.signal()
        thread?.join()
        thread = nil
    }

    // MARK: - The session's events (I/O thread) and the reconnecting thread

    private func changed(_ change: PeerStateChange) {
        switch change.state {
        case .connected:
            shared.withLock { $0.peer = change.peer; $0.last = change.peer; $0.down = nil }
        case .disconnected:
            let why = RemoteFarewell.describe(change)
            let dropped = shared.withLock { s -> Bool in
                guard let peer = s.peer, peer.id == change.peer.id else { return false }
                s.peer = nil
                if s.stopping { left.signal() }
                guard !s.stopping, s.ended == nil else { return false }
                if let reason = change.reason, Self.isFinal(reason) {
                    s.ended = why
                } else if retryFor <= 0 {
                    s.ended = why
                } else {
                    s.down = (why, 0, MonotonicClock.nanos() + UInt64(backoff.first * 1e9))
                }
                return true
            }
            guard dropped else { return }
            if let ended { return onEnd(ended) }
            notice("link to \(change.peer.shownName) lost: \(why); reconnecting for up to \(Int(retryFor)) s")
            wake.signal()
        default:
            break
        }
    }

    /// Declines and closes that another attempt would only repeat.
    static func isFinal(_ reason: CloseReason) -> Bool {
        reason == .authenticationFailed || reason == .versionMismatch || reason == .declinedByPolicy
    }

    private func run() {
        while true {
            // Looked at before each wait: a `stop` whose wake a backoff wait took ends it here.
            let (stopping, down) = shared.withLock { ($0.stopping, $0.down != nil && $0.ended == nil) }
            if stopping { return }
            if down { reconnect() } else { wake.wait() }
        }
    }

    /// Attempts until connected, ended, or stopping. - Thread: the link's own.
    private func reconnect() {
        let since = MonotonicClock.nanos()
        let deadline = since + UInt64(retryFor * 1e9)
        var delay = backoff.first
        var attempts = 0
        while true {
            let now = MonotonicClock.nanos()
            let next = min(now + UInt64(delay * 1e9), deadline)
            shared.withLock { s in if s.down != nil { s.down!.next = next; s.down!.attempts = attempts } }
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(next - min(next, now))))   // the backoff; `stop` cuts it short
            if shared.withLock({ $0.stopping }) { return }
            attempts += 1
            let left = Double(deadline - min(deadline, MonotonicClock.nanos())) / 1e9
            do {
                let peer = try session.connect(to: target, timeout: min(timeout, max(left, 0.25)))
                let seconds = Double(MonotonicClock.nanos() - since) / 1e9
                let restarted = replayHeld()
                notice(String(format: "reconnected to %@ after %.1f s (%d attempt%@)", peer.shownName, seconds, attempts, attempts == 1 ? "" : "s")
                       + (restarted > 0 ? "; \(restarted) held touch\(restarted == 1 ? "" : "es") started again" : ""))
                return
            } catch let e as PeerError {
                if case .stopped = e { return }
                if case .declined(let reason, _) = e, Self.isFinal(reason) { return end("the instrument declined: \(e)") }
                shared.withLock { if $0.down != nil { $0.down!.why = "\(e)" } }
            } catch {
                shared.withLock { if $0.down != nil { $0.down!.why = "\(error)" } }
            }
            onAttemptFailed(attempts)
            if MonotonicClock.nanos() >= deadline {
                let why = shared.withLock { $0.down?.why ?? "" }
                return end(String(format: "gave up reconnecting to %@ after %.0f s (%d attempt%@; the last: %@)",
                                  target, retryFor, attempts, attempts == 1 ? "" : "s", why))
            }
            delay = min(delay * 2, backoff.most)
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
                case .tilt, .sustain: break
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
        if first { onEnd(why) }
    }
}
