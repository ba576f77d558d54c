import BendControl
import BendSystem
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
    private let emit: @Sendable (ControlEvent) -> Void
    private let status: @Sendable () -> (xruns: Int, voices: Int)

    /// - Parameters:
    ///   - emit: the source's port (`port.send`); called under this object's lock.
    ///   - status: the instrument's xruns and voices, for the pong.
    public init(token: WebToken, limits: WebLimits = WebLimits(), pitchMap: PitchMap = .linear, guides: [ScaleGuide] = [],
                emit: @escaping @Sendable (ControlEvent) -> Void,
                status: @escaping @Sendable () -> (xruns: Int, voices: Int) = { (0, 0) }) {
        self.token = token
        self.limits = limits
        self.pitchMap = pitchMap
        self.guides = guides
        self.emit = emit
        self.status = status
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

    /// Whether `connection` has paired (its hello was right).
    public func isPaired(_ connection: UInt64) -> Bool { state.withLock { $0.sessions[connection]?.paired ?? false } }

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
                    replies.append(WebReply.paired(connection: session.number, pitchMap: pitchMap))
                    if !guides.isEmpty { replies.append(WebReply.guides(guides)) }
                    continue
                }
                guard session.paired else { return .close(.wrongToken, "no pairing token: the first message is 'h TOKEN'") }
                switch message {
                case .hello: break
                case let .touch(id, phase, x, y, _):
                    let owner = WebTouch(connection: connection, id: id)
                    if phase == .down, s.touches.id(of: owner) == nil,
                       s.touches.count(where: { $0.connection == connection }) >= limits.maxTouches {
                        continue  // over the touch limit: ignored, and so are its moves and up
                    }
                    for e in s.touches.translate(.touch(id: id, phase: phase, x: x, y: y), owner: { WebTouch(connection: connection, id: $0) }) {
                        emit(e)
                    }
                case let .tilt(value):
                    emit(.tilt(value))
                case let .sustain(on):
                    // One port for every phone: sustain is on while any phone's button is down.
                    let before = s.sustained
                    session.sustain = on
                    s.sessions[connection] = session
                    if s.sustained != before { emit(.sustain(on)) }
                case let .ping(t):
                    let (xruns, voices) = status()
                    replies.append(WebReply.pong(clientTime: t, xruns: xruns, voices: voices))
                }
            }
            return .keep(replies: replies)
        }
    }

    /// The connection closed (or was closed): every touch of it ends now.
    public func close(_ connection: UInt64) {
        state.withLock { s in
            guard s.sessions[connection] != nil else { return }
            for id in s.touches.endAll(where: { $0.connection == connection }) {
                emit(.touch(id: id, phase: .up, x: 0, y: 0))
            }
            s.letGo(connection, emit: emit)
            s.sessions.removeValue(forKey: connection)
        }
    }

    /// Ends the touches of every connection silent for `limits.silenceNanos` (the server's
    /// timer calls it); the connection stays, and its next down plays again.
    public func endSilent(now: UInt64) {
        state.withLock { s in
            for (connection, session) in s.sessions where now > session.lastHeard && now - session.lastHeard >= limits.silenceNanos {
                for id in s.touches.endAll(where: { $0.connection == connection }) {
                    emit(.touch(id: id, phase: .up, x: 0, y: 0))
                }
                s.letGo(connection, emit: emit)
            }
        }
    }
}
