// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import Glibc
import Synchronization

/// Per-connection limits of the web controller, like the peers' and OSC senders'.
public struct WebLimits: Sendable, Equatable {
    /// Phones playing (paired) at once; one more is told so and closed at its hello.
    /// Only paired connections count, so connections without the token cannot keep a
    /// phone out.
    public var maxConnections = 8
    /// Connections not yet paired at once; one more is refused when it opens.
    public var maxUnpaired = 16
    /// Seconds a connection has to pair (its hello, whole) before it is closed, so
    /// connections that never pair cannot hold the `maxUnpaired` places (and keep every
    /// phone out) for longer than this.
    public var helloSeconds: Int32 = 5
    /// Touches one connection holds at once; a down beyond them is ignored (a hand has
    /// ten fingers; a page gives every pointer one).
    public var maxTouches = 16
    /// Events (message lines) per second a connection may send, sustained; over it
    /// (after `burst`), the connection is closed. Ten fingers at 120 Hz are 1200/s.
    public var eventsPerSecond = 2000.0
    /// Events a connection may send at once above the sustained rate: one second's worth,
    /// as the peers have. The allowance counts messages as the server reads them, so a
    /// phone whose Wi-Fi held its messages back (power saving delivers them in bursts),
    /// or a server thread kept from running, hands over a backlog at once: with a
    /// quarter second (500) the soak's web pads (450 events a second) were closed
    /// mid-run under the OSC flood.
    public var burst = 2000.0
    /// A connection silent this long (the page pings 5 times a second) has its touches
    /// ended, so a phone that vanished without closing (Wi-Fi gone) leaves no voice on.
    public var silenceNanos: UInt64 = 600_000_000

    public init() {}
}

/// A touch of one connection, in the page's ids: the owner in the source's namespace.
struct WebTouch: Hashable, Sendable {
    var connection: UInt64
    var id: UInt32
}

/// The web controller's connections: pairing, limits, and each connection's touches
/// numbered in one `TouchNamespace` (two phones' pointer 1 are two voices). Every event
/// goes to `emit` under one lock, so the source's port has one producer at a time
/// whichever server thread a connection runs on. No I/O: the server feeds it bytes and
/// does what the verdict says; tests feed it directly.
/// - Thread: any.
public final class WebSessions: Sendable {
    /// What to do with a connection after a message.
    public enum Verdict: Sendable, Equatable {
        /// Keep it open; send these text messages back.
        case keep(replies: [String])
        /// Close it with this code and reason (shown by the page).
        case close(WebCloseCode, String)
    }

    private struct Session {
        var number: Int
        var paired = false
        /// Events it may still send (`limits.eventsPerSecond`, `limits.burst`).
        var budget: TokenBucket
        /// CLOCK_MONOTONIC ns of the last message.
        var lastHeard: UInt64
        /// Its sustain button is down.
        var sustain = false
        /// The last x (pad, 0…1) of each held touch, by the page's id: the pong says how
        /// far from it the pitch that sounds is.
        var raw: [UInt32: Double] = [:]
        /// Touches the instrument ended while their finger may still be down (the phone
        /// went silent), by the page's id: the finger's next move starts it again.
        var silenced: Set<UInt32> = []
    }
    private struct State {
        var touches = TouchNamespace<WebTouch>()
        var sessions: [UInt64: Session] = [:]
        var nextConnection: UInt64 = 1
        /// True while any connection's sustain button is down.
        var sustained: Bool { sessions.values.contains { $0.sustain } }
        /// `connection` lets its sustain go (it closed or went silent): `.sustain(false)`
        /// when it was the last one holding.
        mutating func letGo(_ connection: UInt64, emit: (ControlEvent) -> Void) {
            guard sessions[connection]?.sustain == true else { return }
            sessions[connection]?.sustain = false
            if !sustained { emit(.sustain(false)) }
        }
    }
    private let state = Mutex(State())
    public let token: WebToken
    public let limits: WebLimits
    public let pitchMap: PitchMap
    /// The scale's steps on the pad (`Tuning.guides`), sent after `ok`; empty: no scale.
    public let guides: [ScaleGuide]
    /// The MIDI note the tone sounds at as recorded (69 = A4), sent in `ok`.
    public let toneNote: Double
    /// The instrument follows touches' timbres: the page sends `f` lines (`WebReply.paired`).
    public let timbre: Bool
    private let emit: @Sendable (ControlEvent) -> Void
    private let status: @Sendable () -> (xruns: Int, voices: Int)
    private let sounding: @Sendable () -> [UInt32: Double]
    private let log: @Sendable (String) -> Void
    /// The instrument's panic (`InputContext.panic`), for the page's panic button; called
    /// under this object's lock, after every phone's touches ended.
    private let panic: @Sendable (String) -> Void

    /// - Parameters:
    ///   - emit: the source's port (`port.send`); called under this object's lock.
    ///   - status: the instrument's xruns and voices, for the pong.
    ///   - sounding: the pad x each of the source's touches sounds at, by port id (the
    ///     touch board's: the port's rounding moves it from the finger's), for the pong;
    ///     called under this object's lock. Empty: as sent.
    ///   - log: a line for the player (touches ended by silence, started again).
    public init(token: WebToken, limits: WebLimits = WebLimits(), pitchMap: PitchMap = .linear, guides: [ScaleGuide] = [],
                toneNote: Double = 69, timbre: Bool = false,
                emit: @escaping @Sendable (ControlEvent) -> Void,
                status: @escaping @Sendable () -> (xruns: Int, voices: Int) = { (0, 0) },
                sounding: @escaping @Sendable () -> [UInt32: Double] = { [:] },
                log: @escaping @Sendable (String) -> Void = { _ in }, panic: @escaping @Sendable (String) -> Void = { _ in }) {
        self.panic = panic
        self.token = token
        self.limits = limits
        self.pitchMap = pitchMap
        self.guides = guides
        self.toneNote = toneNote
        self.timbre = timbre
        self.emit = emit
        self.status = status
        self.sounding = sounding
        self.log = log
    }

    /// The phone number of `connection` once it has paired, else nil.
    public func phone(_ connection: UInt64) -> Int? {
        state.withLock { s in s.sessions[connection].flatMap { $0.paired ? $0.number : nil } }
    }

    /// Connections open now (paired or not).
    public var connections: Int { state.withLock { $0.sessions.count } }
    /// Touches held now, all connections.
    public var touches: Int { state.withLock { $0.touches.count } }

    /// A new WebSocket connection: its id, or the reason it is refused (`maxUnpaired`
    /// connections already wait for their hello).
    public func open(now: UInt64) -> (connection: UInt64, refusal: Verdict?) {
        state.withLock { s in
            let id = s.nextConnection
            s.nextConnection += 1
            guard s.sessions.values.filter({ !$0.paired }).count < limits.maxUnpaired else {
                return (id, .close(.full, "\(limits.maxUnpaired) connections already wait to pair"))
            }
            s.sessions[id] = Session(number: 0, budget: TokenBucket(rate: limits.eventsPerSecond, burst: limits.burst), lastHeard: now)
            return (id, nil)
        }
    }

    /// A piece of a message of `connection`'s came in (the message is not whole yet): it
    /// is not silent, for the silence rule (`endSilent`).
    public func heard(_ connection: UInt64, now: UInt64) {
        state.withLock { s in
            guard var session = s.sessions[connection] else { return }
            session.lastHeard = max(session.lastHeard, now)
            s.sessions[connection] = session
        }
    }

    /// Phones paired now.
    public var paired: Int { state.withLock { $0.sessions.values.filter(\.paired).count } }

    /// One text message of `connection`'s. Its events reach the port in order; a message
    /// refused by the decoder or the limits sends none of its events.
    public func receive(_ connection: UInt64, _ bytes: some Collection<UInt8>, now: UInt64) -> Verdict {
        let messages: [WebMessage]
        do { messages = try WebMessageDecoder.decode(bytes) } catch {
            return .close(.badMessage, error.description)
        }
        return state.withLock { s -> Verdict in
            guard var session = s.sessions[connection] else { return .close(.full, "not open") }
            // Server threads read the clock before taking the lock: `now` may be a little
            // older than a time already stored.
            session.lastHeard = max(session.lastHeard, now)
            let within = session.budget.spend(messages.count, now: now)
            s.sessions[connection] = session
            guard within else {
                return .close(.overLimit, "over \(Int(limits.eventsPerSecond)) events per second")
            }
            var replies: [String] = []
            var restarted = 0
            for message in messages {
                if case let .hello(offered) = message {
                    guard !session.paired else { return .close(.badMessage, "paired already: 'h' comes once, first") }
                    guard token.matches(offered) else { return .close(.wrongToken, "wrong pairing token: open the address bendsynth printed") }
                    guard s.sessions.values.filter(\.paired).count < limits.maxConnections else {
                        return .close(.full, "\(limits.maxConnections) phones already play")
                    }
                    session.paired = true
                    // The lowest number no paired phone has: a phone that reconnects
                    // (locked, back from the background) is phone 1 again, not 52.
                    let taken = Set(s.sessions.values.filter(\.paired).map(\.number))
                    session.number = (1...).first { !taken.contains($0) }!
                    s.sessions[connection] = session
                    replies.append(WebReply.paired(connection: session.number, pitchMap: pitchMap, toneNote: toneNote, timbre: timbre))
                    if !guides.isEmpty { replies.append(WebReply.guides(guides)) }
                    continue
                }
                guard session.paired else { return .close(.wrongToken, "no pairing token: the first message is 'h TOKEN'") }
                switch message {
                case .hello: break
                case .touch(let id, var phase, let x, let y, _):
                    let owner = WebTouch(connection: connection, id: id)
                    if phase != .down, s.touches.id(of: owner) == nil, session.silenced.remove(id) != nil {
                        // Ended by silence with the finger down: its move starts it again
                        // (as `remote` and OSC do); its up has nothing left to end.
                        guard phase == .move else { continue }
                        phase = .down
                        restarted += 1
                    } else if phase == .down {
                        session.silenced.remove(id)
                    }
                    if phase == .down, s.touches.id(of: owner) == nil,
                       s.touches.count(where: { $0.connection == connection }) >= limits.maxTouches {
                        continue  // over the touch limit: ignored, and so are its moves and up
                    }
                    for e in s.touches.translate(.touch(id: id, phase: phase, x: x, y: y), owner: { WebTouch(connection: connection, id: $0) }) {
                        emit(e)
                    }
                    session.raw[id] = phase == .up || s.touches.id(of: owner) == nil ? nil : x
                    s.sessions[connection] = session
                case let .tilt(value):
                    emit(.tilt(value))
                case let .force(id, value):
                    // A sounding touch's second dimension, under the id its touch goes by.
                    if let mapped = s.touches.id(of: WebTouch(connection: connection, id: id)) { emit(.timbre(id: mapped, value: value)) }
                case let .sustain(on):
                    // One port for every phone: sustain is on while any phone's button is down.
                    let before = s.sustained
                    session.sustain = on
                    s.sessions[connection] = session
                    if s.sustained != before { emit(.sustain(on)) }
                case .panic:
                    // Every source's touches end (the instrument's panic), then every
                    // phone's are forgotten here, so their next touch starts anew.
                    panic("the phone pad's panic button (phone \(session.number))")
                    for id in s.touches.endAll(where: { _ in true }) { emit(.touch(id: id, phase: .up, x: 0, y: 0)) }
                    let before = s.sustained
                    for c in s.sessions.keys { s.sessions[c]?.sustain = false }
                    session.sustain = false
                    if before { emit(.sustain(false)) }
                case let .ping(t):
                    let (xruns, voices) = status()
                    replies.append(WebReply.pong(clientTime: t, xruns: xruns, voices: voices, touches: soundingTouches(connection, session, s)))
                }
            }
            s.sessions[connection] = session
            if restarted > 0 {
                log("web: phone \(session.number): \(restarted) held touch\(restarted == 1 ? "" : "es") started again")
            }
            return .keep(replies: replies)
        }
    }

    /// The pong's touches of `connection`: each held touch's page id and the cents from
    /// the finger's pitch to the pitch it sounds at.
    private func soundingTouches(_ connection: UInt64, _ session: Session, _ s: State) -> [(id: UInt32, cents: Double)] {
        let held = s.touches.held(where: { $0.connection == connection })
        guard !held.isEmpty else { return [] }
        let xs = sounding()
        return held.map { owner, portID in
            guard let raw = session.raw[owner.id], let x = xs[portID] else { return (owner.id, 0) }
            let a = pitchMap.ratio(x: raw), b = pitchMap.ratio(x: x)
            let cents = a > 0 && b > 0 ? 1200 * log2(b / a) : 0
            return (owner.id, cents.isFinite ? cents : 0)
        }
    }

    /// The connection closed (or was closed): every touch of it ends now.
    /// - Returns: its phone number when it had paired (for the player's line).
    @discardableResult
    public func close(_ connection: UInt64) -> Int? {
        state.withLock { s in
            guard let session = s.sessions[connection] else { return nil }
            for id in s.touches.endAll(where: { $0.connection == connection }) {
                emit(.touch(id: id, phase: .up, x: 0, y: 0))
            }
            s.letGo(connection, emit: emit)
            s.sessions.removeValue(forKey: connection)
            return session.paired ? session.number : nil
        }
    }

    /// Ends the touches of every connection silent for `limits.silenceNanos` (the server's
    /// timer calls it); the connection stays, and its next down, or a move of a finger
    /// still down, plays again.
    public func endSilent(now: UInt64) {
        state.withLock { s in
            for (connection, session) in s.sessions where now > session.lastHeard && now - session.lastHeard >= limits.silenceNanos {
                let fingers = s.touches.held(where: { $0.connection == connection }).map(\.owner.id)
                for id in s.touches.endAll(where: { $0.connection == connection }) {
                    emit(.touch(id: id, phase: .up, x: 0, y: 0))
                }
                s.letGo(connection, emit: emit)
                guard !fingers.isEmpty else { continue }
                s.sessions[connection]?.silenced.formUnion(fingers)
                s.sessions[connection]?.raw = [:]
                log("web: phone \(session.number) silent for \(Double(limits.silenceNanos) / 1e9) s: its \(fingers.count) touch\(fingers.count == 1 ? "" : "es") ended (a move starts \(fingers.count == 1 ? "it" : "them") again)")
            }
        }
    }
}
