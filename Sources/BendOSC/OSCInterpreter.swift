import BendControl
import BendSystem

/// Turns OSC packets from any number of senders into `ControlEvent`s for one control
/// port: TUIO 1.1 cursors and 2.0 pointers, bendsynth's own address space (docs/OSC.md),
/// TouchOSC-style XY pads and phone accelerometers (`/accxyz`).
///
/// Each sender address (`ip:port`) is its own touch namespace: its touch ids, TUIO
/// sessions and XY pads never meet another sender's; every touch gets a port-wide id
/// of its own. A sender silent for `timeout` has its touches ended (`expire`).
/// Wrong argument types are logged once per OSC address and dropped.
///
/// - Thread: one thread (the OSC receive thread: the port is single-producer).
public final class OSCInterpreter {
    /// Seconds of silence after which a sender's touches end; 0: never.
    public let timeout: Double
    /// Touches held at once over all senders; further starts are ignored (logged once).
    public static let maxTouches = 256
    /// Senders tracked at once; packets from further ones are dropped (logged once).
    public static let maxSenders = 64

    let emit: (ControlEvent) -> Void
    let log: (String) -> Void
    let voices: () -> Int

    /// Port ids of the touches that are down, by who owns them (BendControl's namespace
    /// helper: ids never collide while held).
    var touches = TouchNamespace<TouchOwner>()
    var senders: [String: SenderState] = [:]
    private var warned: Set<String> = []

    /// Counters, for messages and tests.
    public private(set) var packets = 0
    public private(set) var malformed = 0
    public private(set) var lateFrames = 0
    public private(set) var wrongTypes = 0

    /// - Parameters:
    ///   - timeout: seconds; 0 disables.
    ///   - emit: receives each event (e.g. `ControlPort.send`).
    ///   - log: one line per problem (each kind is logged once).
    ///   - voices: voices sounding in the whole instrument, for `/bendsynth/voices`.
    public init(timeout: Double = 2, emit: @escaping (ControlEvent) -> Void, log: @escaping (String) -> Void = { _ in },
                voices: @escaping () -> Int = { 0 }) {
        self.timeout = timeout
        self.emit = emit
        self.log = log
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
        if senders[sender] == nil {
            guard senders.count < Self.maxSenders else {
                warnOnce("senders", "osc: more than \(Self.maxSenders) senders at once; ignoring \(sender) and further new ones")
                return []
            }
            senders[sender] = SenderState()
        }
        senders[sender]!.lastHeard = now
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

    /// Ends the touches of every sender silent for `timeout` or longer and forgets it
    /// (its TUIO frame numbers too: a restarted tracker counts from 1 again).
    public func expire(now: UInt64) {
        guard timeout > 0 else { return }
        let limit = UInt64(timeout * 1e9)
        for (sender, state) in senders where now >= state.lastHeard && now - state.lastHeard >= limit {
            let n = activeTouches(of: sender)
            if n > 0 { log("osc: \(sender) silent for \(timeout) s: ending its \(n) touch\(n == 1 ? "" : "es")") }
            endSender(sender)
        }
    }

    /// Ends the touches of one sender and forgets it (a TCP connection closed).
    public func endSender(_ sender: String) {
        for id in touches.endAll(where: { $0.sender == sender }) { emit(.touch(id: id, phase: .up, x: 0, y: 0)) }
        senders[sender] = nil
    }

    /// Ends every touch and forgets every sender.
    public func endAll() {
        for sender in Array(senders.keys) { endSender(sender) }
    }

    // MARK: touches

    /// Starts the touch of `owner` at (x, y) in pad coordinates, or moves it.
    func downOrMove(_ owner: TouchOwner, x: Double, y: Double) {
        let x = min(max(x, 0), 1), y = min(max(y, 0), 1)
        if let id = touches.id(of: owner) {
            emit(.touch(id: id, phase: .move, x: x, y: y))
            return
        }
        guard touches.count < Self.maxTouches else {
            warnOnce("touches", "osc: more than \(Self.maxTouches) touches at once; ignoring new ones")
            return
        }
        emit(.touch(id: touches.begin(owner).id, phase: .down, x: x, y: y))
    }

    /// Ends the touch of `owner` if it is down.
    func up(_ owner: TouchOwner) {
        guard let id = touches.end(owner) else { return }
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
    /// z = 1 seen, waiting for a position to start at.
    var pending = false
}
