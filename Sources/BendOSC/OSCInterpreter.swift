// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem

/// Turns OSC packets from any number of senders into `ControlEvent`s for one control
/// port: TUIO 1.1 cursors and 2.0 pointers, bendsynth's own address space (docs/OSC.md),
/// TouchOSC-style XY pads and phone accelerometers (`/accxyz`).
///
/// Each sender address (`ip:port`) is its own touch namespace: its touch ids, TUIO
/// sessions and XY pads never meet another sender's; every touch gets a port-wide id
/// of its own. Wrong argument types are logged once per OSC address and dropped.
///
/// Silence (`expire`) — two kinds of sender:
/// * TUIO trackers have a heartbeat (`alive`/`fseq` every frame, finger still or not):
///   silent for `timeout` (default 2 s), their TUIO touches end.
/// * Change-only senders (`/bendsynth/touch`, XY pads: TouchOSC, Pd, …) send nothing
///   while a finger rests, so silence means nothing there: their touches end on their
///   own touch-off message (`/bendsynth/release`, z = 0) or a closed TCP connection, and
///   only after `restTimeout` (default 300 s) of silence otherwise. A touch ended so comes
///   back, as a new touch, with its next move (an XY pad's position, `/bendsynth/touch`).
///
/// Limits, per sender, so no sender takes another's share: `maxTouchesPerSender` touches
/// at once, `maxEventsPerSecond` events (starts, moves, tilt; touch ends always go; a
/// move held back goes, at its latest position, when the budget allows), and at most
/// `maxSenders` senders (a new one replaces the longest silent sender that holds no touch).
/// Problems a sender can repeat are logged at most once a second per sender, with the
/// count of the lines held back (`RateLimitedLog`).
///
/// - Thread: one thread (the OSC receive thread: the port is single-producer).
public final class OSCInterpreter {
    /// Seconds of silence after which a TUIO sender's touches end; 0: never.
    public let timeout: Double
    /// Seconds of silence after which a change-only sender's touches end; 0: never.
    public let restTimeout: Double
    /// The default of `restTimeout` (`--osc-rest-timeout`), seconds.
    public static let defaultRestTimeout = 300.0
    /// Touches one sender holds at once; its further starts are ignored (logged).
    public static let maxTouchesPerSender = 64
    /// Events (touch starts, moves, tilt) one sender may send per second, and at once.
    public static let maxEventsPerSecond = 2_000.0
    public static let eventBurst = 200.0
    /// Senders tracked at once.
    public static let maxSenders = 64

    let emit: (ControlEvent) -> Void
    /// The instrument's panic (`InputContext.panic`), asked by `/bendsynth/panic` once
    /// this interpreter's own touches have ended. - Thread: the interpreter's.
    public var panic: (String) -> Void = { _ in }
    let log: (String) -> Void
    /// Lines a sender can repeat: at most one a second per sender and kind.
    let limited: RateLimitedLog
    let voices: () -> Int

    /// Port ids of the touches that are down, by who owns them (BendControl's namespace
    /// helper: ids never collide while held).
    var touches = TouchNamespace<TouchOwner>()
    var senders: [String: SenderState] = [:]
    private var warned: Set<String> = []
    /// The time of the packet being handled (monotonic ns), for budgets and log limits.
    var now: UInt64 = 0

    /// Counters, for messages and tests.
    public private(set) var packets = 0
    public private(set) var malformed = 0
    public private(set) var lateFrames = 0
    public private(set) var wrongTypes = 0
    /// Touch starts refused by `maxTouchesPerSender`; events over `maxEventsPerSecond`
    /// dropped (moves held back and sent later are not counted).
    public private(set) var refusedTouches = 0
    public private(set) var overBudget = 0
    /// Log lines written, and held back by the once-a-second limit.
    public var linesWritten: Int { limited.written }
    public var linesHeld: Int { limited.held }

    /// - Parameters:
    ///   - timeout: seconds of silence that end a TUIO sender's touches; 0 disables.
    ///   - restTimeout: seconds of silence that end a change-only sender's touches; 0 disables.
    ///   - emit: receives each event (e.g. `ControlPort.send`).
    ///   - log: one line per problem (each kind logged once, or once a second per sender).
    ///   - voices: voices sounding in the whole instrument, for `/bendsynth/voices`.
    public init(timeout: Double = 2, restTimeout: Double = OSCInterpreter.defaultRestTimeout,
                emit: @escaping (ControlEvent) -> Void, log: @escaping (String) -> Void = { _ in },
                voices: @escaping () -> Int = { 0 }) {
        self.timeout = timeout
        self.restTimeout = restTimeout
        self.emit = emit
        self.log = log
        limited = RateLimitedLog(interval: 1, log: log)
        self.voices = voices
    }

    /// Touches held now, over all senders.
    public var activeTouches: Int { touches.count }

    /// Touches held now by one sender.
    public func activeTouches(of sender: String) -> Int { touches.count(where: { $0.sender == sender }) }

    /// Decodes and handles one datagram (or TCP frame) from `sender` received at
    /// monotonic time `now` (ns). Malformed packets are counted and logged once per
    /// kind of fault. - Returns: the replies to send back to the sender.
    public func handle(datagram: UnsafeRawBufferPointer, from sender: String, now: UInt64) -> [[UInt8]] {
        let packet: OSCPacket
        do { packet = try OSCPacket.decode(datagram) } catch {
            malformed += 1
            warnOnce("malformed:\(error.code)", "osc: dropped a malformed packet from \(sender): \(error)")
            return []
        }
        return handle(packet, from: sender, now: now)
    }

    /// Handles one decoded packet. - Returns: the replies to send back to the sender.
    public func handle(_ packet: OSCPacket, from sender: String, now: UInt64) -> [[UInt8]] {
        packets += 1
        self.now = now
        if senders[sender] == nil {
            if senders.count >= Self.maxSenders { forgetQuietestIdleSender() }
            guard senders.count < Self.maxSenders else {
                limited.line("senders", now: now, "osc: more than \(Self.maxSenders) senders hold touches; ignoring \(sender) (and other new ones) until one lets go")
                return []
            }
            senders[sender] = SenderState()
        }
        senders[sender]!.lastHeard = now
        sendHeldMoves(of: sender)
        let messages = packet.messages
        var replies: [[UInt8]] = []
        for m in messages where !TUIOFrame.isTUIO(m.address) {
            if let r = handle(m, from: sender, now: now) { replies.append(r) }
        }
        let tuio = messages.filter { TUIOFrame.isTUIO($0.address) }
        if !tuio.isEmpty {
            for frame in TUIOFrame.frames(of: tuio, wrongTypes: { self.wrongType($0, expected: $1, from: sender) }) {
                apply(frame, from: sender)
            }
        }
        return replies
    }

    /// Silence: ends the TUIO touches of every sender silent for `timeout` (and forgets
    /// its TUIO frame numbers: a restarted tracker counts from 1 again), and the other
    /// touches of every sender silent for `restTimeout` (an XY pad that was touching
    /// starts again at its next position). Also sends moves held back by a budget and
    /// says the counts of log lines held back. Call every few tens of ms.
    public func expire(now: UInt64) {
        self.now = now
        for sender in Array(senders.keys) {
            sendHeldMoves(of: sender)
            guard let state = senders[sender], now >= state.lastHeard else { continue }
            let silence = now - state.lastHeard
            if timeout > 0 && silence >= UInt64(timeout * 1e9) && !state.tuio.isEmpty {
                let ended = end(sender) { if case .tuio = $0.space { return true }; return false }
                if ended > 0 { log("osc: \(sender) silent for \(timeout) s: ending its \(ended) touch\(ended == 1 ? "" : "es")") }
                senders[sender]?.tuio = [:]
            }
            if restTimeout > 0 && silence >= UInt64(restTimeout * 1e9) {
                for (n, pad) in state.pads where touches.id(of: TouchOwner(sender: sender, space: .xy, id: n)) != nil {
                    var p = pad
                    p.pending = true   // still touching, for all we know: the next position starts it again
                    senders[sender]?.pads[n] = p
                }
                let ended = end(sender) { if case .tuio = $0.space { return false }; return true }
                if ended > 0 {
                    log(String(format: "osc: %@ sent nothing for %g s: ending its %d resting touch%@ (a move starts %@ again)",
                               sender, restTimeout, ended, ended == 1 ? "" : "es", ended == 1 ? "it" : "each"))
                }
            }
        }
        limited.flush(now: now)
    }

    /// Ends the touches of one sender and forgets it (a TCP connection closed).
    public func endSender(_ sender: String) {
        _ = end(sender) { _ in true }
        senders[sender] = nil
    }

    /// Ends every touch and forgets every sender.
    public func endAll() {
        for sender in Array(senders.keys) { endSender(sender) }
    }

    /// Ends the touches of `sender` whose owner passes `which`. - Returns: how many.
    private func end(_ sender: String, _ which: (TouchOwner) -> Bool) -> Int {
        let ids = touches.endAll(where: { $0.sender == sender && which($0) })
        for id in ids {
            senders[sender]?.heldMoves[id] = nil
            emit(.touch(id: id, phase: .up, x: 0, y: 0))
        }
        return ids.count
    }

    /// Makes room for a new sender: forgets the one silent longest that holds no touch.
    private func forgetQuietestIdleSender() {
        let idle = senders.filter { s in touches.count(where: { $0.sender == s.key }) == 0 }
        if let oldest = idle.min(by: { $0.value.lastHeard < $1.value.lastHeard }) { senders[oldest.key] = nil }
    }

    /// An event of `sender` within its budget? Counts it (and logs, limited) when not.
    func allowed(_ sender: String) -> Bool {
        guard senders[sender] != nil else { return true }
        if senders[sender]!.budget.take(now: now) { return true }
        overBudget += 1
        limited.line("rate:\(sender)", now: now,
                     "osc: \(sender) sends more than \(Int(Self.maxEventsPerSecond)) events a second; dropping some (moves go at their latest position)")
        return false
    }

    /// Moves held back by the budget, at their latest positions, as far as it allows.
    private func sendHeldMoves(of sender: String) {
        guard let held = senders[sender]?.heldMoves, !held.isEmpty else { return }
        for (id, p) in held.sorted(by: { $0.key < $1.key }) {
            guard senders[sender]!.budget.take(now: now) else { return }
            senders[sender]!.heldMoves[id] = nil
            emit(.touch(id: id, phase: .move, x: p.x, y: p.y))
        }
    }

    // MARK: touches

    /// Starts the touch of `owner` at (x, y) in pad coordinates, or moves it; within the
    /// sender's limits (a move over its budget is held back and sent later).
    func downOrMove(_ owner: TouchOwner, x: Double, y: Double) {
        let x = min(max(x, 0), 1), y = min(max(y, 0), 1)
        if let id = touches.id(of: owner) {
            guard allowed(owner.sender) else {
                senders[owner.sender]?.heldMoves[id] = (x, y)
                return
            }
            senders[owner.sender]?.heldMoves[id] = nil
            emit(.touch(id: id, phase: .move, x: x, y: y))
            return
        }
        guard allowed(owner.sender) else { return }
        guard touches.count(where: { $0.sender == owner.sender }) < Self.maxTouchesPerSender else {
            refusedTouches += 1
            limited.line("touches:\(owner.sender)", now: now,
                         "osc: \(owner.sender) holds \(Self.maxTouchesPerSender) touches (its most at once); ignoring its new ones")
            return
        }
        emit(.touch(id: touches.begin(owner).id, phase: .down, x: x, y: y))
    }

    /// Ends the touch of `owner` if it is down.
    func up(_ owner: TouchOwner) {
        guard let id = touches.end(owner) else { return }
        senders[owner.sender]?.heldMoves[id] = nil
        emit(.touch(id: id, phase: .up, x: 0, y: 0))
    }

    /// Applies one TUIO frame: late frames are dropped; sessions missing from `alive`
    /// end; `set` starts or moves a session (y flipped: TUIO's y grows downwards).
    func apply(_ frame: TUIOFrame, from sender: String) {
        var state = senders[sender]!.tuio[frame.source] ?? TUIOState()
        if let n = frame.frame {
            if TUIOFrame.isLate(n, after: state.lastFrame) {
                lateFrames += 1
                return
            }
            if n > 0 { state.lastFrame = n }
        }
        if let alive = frame.alive {
            let keep = Set(alive)
            for session in state.sessions.subtracting(keep).sorted() {
                up(TouchOwner(sender: sender, space: .tuio(frame.source), id: session))
            }
            state.sessions.formIntersection(keep)
        }
        for s in frame.sets {
            if let alive = frame.alive, !alive.contains(s.session) { continue }
            let owner = TouchOwner(sender: sender, space: .tuio(frame.source), id: s.session)
            downOrMove(owner, x: s.x, y: 1 - s.y)
            if touches.id(of: owner) != nil { state.sessions.insert(s.session) }
        }
        senders[sender]!.tuio[frame.source] = state
    }

    // MARK: problems

    func wrongType(_ address: String, expected: String, got: String? = nil, from sender: String) {
        wrongTypes += 1
        let detail = got.map { ", got ,\(UntrustedText.escaped($0))" } ?? ""
        warnOnce("types:\(address)", "osc: \(UntrustedText.escaped(address)) from \(sender): expected \(expected)\(detail); dropped (logged once for this address)")
    }

    /// Logs `message` the first time `key` is seen (at most 256 keys, then once more).
    func warnOnce(_ key: String, _ message: String) {
        guard !warned.contains(key) else { return }
        if warned.count >= 256 {
            if warned.insert("…").inserted { log("osc: further problems are not logged") }
            return
        }
        warned.insert(key)
        log(message)
    }
}

/// Who a touch belongs to: a sender, a namespace within it, and the id there.
struct TouchOwner: Hashable, Sendable {
    enum Space: Hashable, Sendable {
        /// `/bendsynth/touch` ids.
        case own
        /// An XY pad number.
        case xy
        /// TUIO sessions of one tracker source.
        case tuio(String)
    }
    var sender: String
    var space: Space
    var id: Int64
}

/// What is known of one sender.
struct SenderState {
    /// Monotonic ns of its last packet.
    var lastHeard: UInt64 = 0
    var tuio: [String: TUIOState] = [:]
    var pads: [Int64: XYPadState] = [:]
    /// Events it may still send (`OSCInterpreter.maxEventsPerSecond`).
    var budget = TokenBucket(rate: OSCInterpreter.maxEventsPerSecond, burst: OSCInterpreter.eventBurst)
    /// Moves over the budget, by port id: the latest position, sent when it allows.
    var heldMoves: [UInt32: (x: Double, y: Double)] = [:]
}

struct TUIOState {
    var lastFrame: Int64?
    /// Sessions with a touch down.
    var sessions: Set<Int64> = []
}

struct XYPadState {
    /// Last position from an xy message (pad coordinates) and when it came.
    var position: (x: Double, y: Double)?
    var positionTime: UInt64 = 0
    /// Touching with no touch down: z = 1 seen (or a touch ended by silence) — the next
    /// position starts one.
    var pending = false
}
