// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import Glibc
import Synchronization

/// Where an instrument's lines about its peers go (a peer's TEXT with the sender's
/// name, a peer coming or leaving, a limit hit): the pad's status area while it is
/// drawn, stderr otherwise. - Thread: `post` from any thread.
public protocol PeerNotices: AnyObject, Sendable {
    func post(_ text: String)
}

/// The instrument's player, asked about Bluetooth invitations (`InvitationDecision.ask`).
/// - Thread: `offer` and `withdraw` on the session's I/O thread; `connect` at setup.
public protocol InvitationAsker: AnyObject, Sendable {
    /// An invitation now waits for the player.
    func offer(_ peer: PeerInfo)
    /// The invitation was settled elsewhere (connected, declined, gone).
    func withdraw(_ id: PeerID)
    /// Where the player's answers go (the session's `answerInvitation`).
    func connect(_ answer: @escaping @Sendable (PeerID, InvitationDecision) -> Void)
}

/// `play --listen` / `play --bluetooth`: other machines' touches over the peer protocol,
/// as an input source. A `PeerSession` (its own event loop: the port's one producer)
/// listens; a `PeerTouchTranslator` gives each peer's touch ids their own namespace and
/// holds each peer to `PeerLimits`; when a peer goes — BYE, closed socket, heartbeat
/// timeout, a bad frame — every touch it holds ends.
public final class PeerSource: InputSource, @unchecked Sendable {
    public let name: String
    public let endsPlay = false
    /// What the session listens on (transport syntax).
    public let listenAddress: String
    public let key: SharedKey?
    public let limits: PeerLimits
    /// TCP (`--listen`) or Bluetooth RFCOMM (`--bluetooth`).
    public let transport: PeerTransport
    /// Who may play over Bluetooth; nil for TCP (the shared key decides there).
    public let admission: BluetoothAdmission?
    /// Over Bluetooth with the terminal: the player answers invitations at the pad.
    public let prompt: (any InvitationAsker)?
    private var session: PeerSession?
    /// Peers' touches → this port's: only the session's I/O thread (the port's one
    /// producer) uses it.
    private var translator: PeerTouchTranslator
    private let bound = Mutex<String?>(nil)
    private var announcer: PeerAnnouncer?
    /// Off loopback, where avahi-daemon runs: the `_bendsynth._tcp` DNS-SD record.
    private var avahi: AvahiPublisher?
    /// Over Bluetooth: the BlueZ profile (the service record bluetoothd publishes, the
    /// connections it hands over) and its pairing agent.
    public let bluetooth: BluetoothProfile?
    /// Where lines for the player go (TEXT, peers coming and going); nil: `log`. Set
    /// before `start`.
    public var notices: (any PeerNotices)?
    /// The name this instrument shows to remotes and announces (`play --name`); nil:
    /// "bendsynth on HOST". Set before `start`.
    public var instrumentName: String?
    /// Where setup lines go (listening, a missing SDP record): stderr in the app. Set
    /// before `start`.
    public var log: @Sendable (String) -> Void = { _ in }

    /// Listens on TCP `address`; `key` is demanded off loopback.
    public init(listening address: SocketAddress, key: SharedKey?, limits: PeerLimits = PeerLimits()) {
        listenAddress = address.description
        name = "peers on \(address)"
        self.key = key
        self.limits = limits
        translator = PeerTouchTranslator(limits: limits)
        transport = TCPTransport()
        admission = nil
        prompt = nil
        bluetooth = nil
    }

    /// Registers the bendsynth profile with bluetoothd on RFCOMM `channel` (empty: the
    /// default, 7) and takes the connections it hands over; who may play — and pair — is
    /// decided by `admission` (with `prompt`, others are asked about at the pad).
    public init(bluetoothChannel channel: String, admission: BluetoothAdmission, prompt: (any InvitationAsker)?,
                instrumentName: String? = nil, limits: PeerLimits = PeerLimits()) {
        var admission = admission
        admission.askPlayer = prompt != nil
        self.prompt = prompt
        listenAddress = channel
        name = "peers over Bluetooth"
        key = nil
        self.limits = limits
        translator = PeerTouchTranslator(limits: limits)
        self.instrumentName = instrumentName
        let profile = BluetoothProfile(channel: UInt8(channel) ?? RFCOMMTransport.defaultChannel, name: instrumentName ?? "bendsynth on \(Self.hostName())",
                                       agent: BluetoothAgent(admission: admission, asker: prompt))
        bluetooth = profile
        transport = BluetoothProfileTransport(profile: profile)
        self.admission = admission
    }

    /// The address actually listened on (port filled in), after `start`. - Thread: any.
    public var boundAddress: String? { bound.withLock { $0 } }

    /// Listens, announces (UDP, DNS-SD off loopback, the BlueZ profile over Bluetooth) and plays the
    /// peers' touches into `port`.
    /// - Throws: `InputSourceError` (runtime: exit 1) ("cannot listen for peers: …").
    public func start(port: ControlPort, context: InputContext, finished: @escaping @Sendable () -> Void) throws {
        var config = PeerSession.Configuration(displayName: instrumentName ?? "bendsynth on \(Self.hostName())", role: .server)
        config.key = key
        let session: PeerSession
        do { session = try PeerSession(configuration: config, transport: transport) } catch {
            throw InputSourceError(.runtime, "cannot listen for peers: \(error)")
        }
        if let admission {
            let prompt = self.prompt
            session.invitationPolicy = { peer in
                let d = admission.decide(peer)
                if case .ask = d { prompt?.offer(peer) }
                return d
            }
            let agent = bluetooth?.agent
            prompt?.connect { [weak session] id, decision in
                if BluetoothAgent.isPairing(id) { agent?.answer(id, decision) } else { session?.answerInvitation(from: id, decision) }
            }
            bluetooth?.log = log
            agent?.notice = { [self] in notice($0) }
        }
        let meters = context.meters, output = context.output
        session.status = { (UInt32(clamping: output.xruns ?? 0), UInt16(clamping: meters.voices)) }
        session.onStateChange = { [self] change in
            if change.state == .connected || change.state == .disconnected { prompt?.withdraw(change.peer.id) }
            switch change.state {
            case .connected:
                notice("\(change.peer) connected")
            case .disconnected:
                releaseTouches(of: change.peer.id, port: port)
                bluetooth?.ended(change.peer.address)
                notice(Self.farewell(change))
            default: break
            }
        }
        // A stranger trying keys must not flood the player's screen: a line per 10 s.
        let wrongKeys = RateLimitedLog(interval: 10) { [weak self] in self?.notice($0) }
        session.onAuthenticationFailure = { address, detail in
            wrongKeys.line("wrong key") { held in
                "declined \(address): \(detail)" + (held > 0 ? " (and \(held) more such \(held == 1 ? "attempt" : "attempts") in the last \(Int(wrongKeys.interval)) s)" : "")
            }
        }
        session.onReceive = { [self] message, peer in receive(message, from: peer, port: port) }
        do {
            let address = try session.listen(on: listenAddress)
            bound.withLock { $0 = address }
            if admission != nil {
                log("listening for Bluetooth peers on RFCOMM \(address) (bendsynth profile registered with bluetoothd)")
            } else {
                log("listening for peers on \(address)" + (key != nil ? " (shared key required)" : " (loopback only)"))
            }
            // Announcements are IPv4 (docs/PROTOCOL.md, "Discovery"): none for an IPv6 listener.
            if admission == nil, let ep = try? PeerAddress.parse(address), ep.family == .ipv4 {
                let announcement = PeerAnnouncement(tcpPort: ep.port, authRequired: key != nil, name: config.displayName, instance: session.instance)
                announcer = try? PeerAnnouncer(announcement, broadcast: !ep.isLoopback)
                // DNS-SD too where avahi-daemon runs (off loopback only); silently none otherwise.
                if !ep.isLoopback {
                    avahi = try? AvahiPublisher(announcement)
                }
            }
        } catch {
            throw InputSourceError(.runtime, "cannot listen for peers: \(error)")
        }
        self.session = session
    }

    public func stop() {
        announcer?.stop()
        announcer = nil
        avahi?.stop()
        avahi = nil
        session?.stop()   // every peer's disconnect releases its touches
        session = nil
        bluetooth?.stop()
    }

    /// The player's line for a peer gone: one that played "left"; one refused before it
    /// played (too many players, or the policy) was "refused" or "declined".
    static func farewell(_ change: PeerStateChange) -> String {
        let detail = change.detail.isEmpty ? "" : " (\(UntrustedText.escaped(change.detail)))"   // the other side's words
        if !change.wasConnected, !change.byPeer {
            switch change.reason {
            case .tooManyPeers?: return "\(change.peer) refused: too many players\(detail)"
            case .declinedByPolicy?: return "\(change.peer) declined\(detail)"
            default: break
            }
        }
        return "\(change.peer) left: \(change.reason.map { "\($0)" } ?? "")\(detail)"
    }

    /// - Thread: the session's I/O thread.
    private func receive(_ message: PeerMessage, from peer: PeerInfo, port: ControlPort) {
        translator.receive(message, from: peer, at: MonotonicClock.nanos(), emit: { port.send($0) }, notice: { notice($0) })
    }

    /// A line for the player: on `notices`, else `log`.
    private func notice(_ text: String) {
        if let notices { notices.post(text) } else { log(text) }
    }

    /// - Thread: the session's I/O thread.
    private func releaseTouches(of peer: PeerID, port: ControlPort) {
        translator.release(peer, emit: { port.send($0) })
    }

    private static func hostName() -> String {
        var b = [UInt8](repeating: 0, count: 256)
        guard gethostname(&b, b.count) == 0 else { return "?" }
        return String(decoding: b.prefix { $0 != 0 }, as: UTF8.self)
    }
}
