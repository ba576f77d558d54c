import BendControl
import BendPeers
import BendSystem
import Foundation
import Glibc
import Synchronization

/// `play --listen`: other machines' touches over the peer protocol. Each peer's touch
/// ids live in their own namespace (mapped to fresh port ids); when a peer goes —
/// BYE, closed socket, heartbeat timeout, a bad frame — every touch it holds ends.
final class PeerSource: PlaySource, @unchecked Sendable {
    let name: String
    let endsPlay = false
    let listenAddress: String
    let key: SharedKey?
    let limits: PeerLimits
    /// TCP (`--listen`) or Bluetooth RFCOMM (`--bluetooth`).
    let transport: PeerTransport
    /// Who may play over Bluetooth; nil for TCP (the shared key decides there).
    let admission: BluetoothAdmission?
    /// Over Bluetooth with the terminal: the player answers invitations at the pad.
    let prompt: InvitationPrompt?
    private var session: PeerSession?
    /// Peers' touches → this port's: only the session's I/O thread (the port's one
    /// producer) uses it.
    private var translator: PeerTouchTranslator
    private let bound = Mutex<String?>(nil)
    private var announcer: PeerAnnouncer?
    /// Off loopback, where avahi-daemon runs: the `_bendsynth._tcp` DNS-SD record.
    private var avahi: AvahiPublisher?
    /// Over Bluetooth: our SDP record, so `peers --bluetooth` finds this instrument.
    private var serviceRecord: BluetoothServiceRecord?
    /// Where TEXT messages and peer comings and goings are shown: the pad's status area
    /// while the terminal pad is drawn, stderr otherwise. Set before `start`.
    var notices = PadNotices()

    /// `play --bluetooth`: exit 1 with "no Bluetooth adapter (…)" where there is none.
    /// - Throws: `AppError.runtime`.
    static func requireBluetooth() throws {
        if let why = BluetoothAddress.unavailableReason() { throw AppError.runtime("play: --bluetooth: \(why)") }
    }

    /// `play --bluetooth`: listens on RFCOMM `channel` (empty: the default, 7); who may
    /// play is decided by `admission`. Call `requireBluetooth()` first.
    init(bluetoothChannel channel: String, admission: BluetoothAdmission, prompt: InvitationPrompt?, limits: PeerLimits = PeerLimits()) {
        var admission = admission
        admission.askPlayer = prompt != nil
        self.prompt = prompt
        listenAddress = channel
        name = "peers over Bluetooth"
        key = nil
        self.limits = limits
        translator = PeerTouchTranslator(limits: limits)
        transport = RFCOMMTransport()
        self.admission = admission
    }

    /// The address actually listened on (port filled in), after `start`.
    var boundAddress: String? { bound.withLock { $0 } }

    /// - Parameters:
    ///   - listen: `[ADDR][:PORT]`; no ADDR → 127.0.0.1; a bare number is a port.
    ///   - keyFile: the shared key for non-loopback addresses; without it the key in
    ///     `$XDG_CONFIG_HOME/bendsynth/key` is used, made (and printed) on first use.
    /// - Throws: `AppError.usage` for a bad address, `.input` for a bad key file.
    init(listen: String, keyFile: String?, limits: PeerLimits = PeerLimits()) throws {
        var spec = listen
        if !spec.isEmpty, spec.allSatisfy(\.isNumber) { spec = ":" + spec }
        let ep: SocketAddress
        do { ep = try PeerAddress.parse(spec) } catch { throw AppError.usage("play: --listen \(error)") }
        listenAddress = ep.description
        name = "peers on \(ep)"
        self.limits = limits
        translator = PeerTouchTranslator(limits: limits)
        transport = TCPTransport()
        admission = nil
        prompt = nil
        if let keyFile {
            do { key = try SharedKey.load(path: keyFile) } catch { throw AppError.input("\(error)") }
        } else if !ep.isLoopback {
            let path = SharedKey.defaultPath
            do {
                let (k, created) = try SharedKey.loadOrCreate(path: path)
                if created {
                    printErr("bendsynth: made a shared key in '\(path)'; give it to the players who may connect (remote --key-file):\n\(k.hex)")
                }
                key = k
            } catch { throw AppError.input("\(error)") }
        } else {
            key = nil
        }
    }

    func start(port: ControlPort, context: PlayContext, finished: @escaping @Sendable () -> Void) throws {
        var config = PeerSession.Configuration(displayName: "bendsynth on \(hostName())", role: .server)
        config.key = key
        let session = PeerSession(configuration: config, transport: transport)
        if let admission {
            let prompt = self.prompt
            session.invitationPolicy = { peer in
                let d = admission.decide(peer)
                if case .ask = d { prompt?.offer(peer) }
                return d
            }
            prompt?.connect { [weak session] id, decision in session?.answerInvitation(from: id, decision) }
        }
        let mixer = context.mixer, output = context.output
        session.status = { (UInt32(clamping: output.xruns), UInt16(clamping: mixer.activeVoices)) }
        session.onStateChange = { [self] change in
            if change.state == .connected || change.state == .disconnected { prompt?.withdraw(change.peer.id) }
            switch change.state {
            case .connected:
                notices.post("\(change.peer) connected")
            case .disconnected:
                releaseTouches(of: change.peer.id, port: port)
                notices.post("\(change.peer) left: \(change.reason.map { "\($0)" } ?? "")\(change.detail.isEmpty ? "" : " (\(change.detail))")")
            default: break
            }
        }
        session.onReceive = { [self] message, peer in receive(message, from: peer, port: port) }
        do {
            let address = try session.listen(on: listenAddress)
            bound.withLock { $0 = address }
            if admission != nil {
                printErr("bendsynth: listening for Bluetooth peers on RFCOMM \(address)")
                do { serviceRecord = try BluetoothServiceRecord(channel: RFCOMMTransport.defaultChannel, name: config.displayName) } catch {
                    printErr("bendsynth: note: others cannot find this instrument by SDP search (they can still connect to its address): \(error)")
                }
            } else {
                printErr("bendsynth: listening for peers on \(address)" + (key != nil ? " (shared key required)" : " (loopback only)"))
            }
            if admission == nil, let ep = try? PeerAddress.parse(address) {
                announcer = try? PeerAnnouncer(PeerAnnouncement(tcpPort: ep.port, authRequired: key != nil, name: config.displayName),
                                               broadcast: !ep.isLoopback)
                // DNS-SD too where avahi-daemon runs (off loopback only); silently none otherwise.
                if !ep.isLoopback {
                    avahi = try? AvahiPublisher(PeerAnnouncement(tcpPort: ep.port, authRequired: key != nil, name: config.displayName))
                }
            }
        } catch {
            throw AppError.runtime("cannot listen for peers: \(error)")
        }
        self.session = session
    }

    func stop() {
        announcer?.stop()
        announcer = nil
        avahi?.stop()
        avahi = nil
        serviceRecord = nil
        session?.stop()   // every peer's disconnect releases its touches
        session = nil
    }

    /// - Thread: the session's I/O thread.
    private func receive(_ message: PeerMessage, from peer: PeerInfo, port: ControlPort) {
        translator.receive(message, from: peer, at: MonotonicClock.nanos(), emit: { port.send($0) }, notice: { notices.post($0) })
    }

    /// - Thread: the session's I/O thread.
    private func releaseTouches(of peer: PeerID, port: ControlPort) {
        translator.release(peer, emit: { port.send($0) })
    }

    private func hostName() -> String {
        var b = [UInt8](repeating: 0, count: 256)
        guard gethostname(&b, b.count) == 0 else { return "?" }
        return String(decoding: b.prefix { $0 != 0 }, as: UTF8.self)
    }
}
