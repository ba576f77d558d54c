import BendControl
import BendPeers
import BendSystem
import Glibc
import Synchronization

/// `remote --monitor`: the controller's pad (or touch script) as a `play` source, so
/// every event goes to the local engine through its `ControlPort` (the same path as
/// `play`) and to the remote instrument through the session. Play ends when the pad
/// quits, the script is done, or the instrument leaves.
final class RemoteMonitorSource: InputSource, @unchecked Sendable {
    let name = "remote pad (monitored)"
    let endsPlay = true
    let session: PeerSession
    let peer: PeerInfo
    let script: TouchScript?
    /// Why the instrument left, once it did.
    let gone = Mutex<String?>(nil)
    private let stopFlag = Atomic<Bool>(false)
    private var thread: SystemThread?
    /// Peers' messages: on the pad while it is drawn.
    let notices: PadNotices
    private var pad: RemotePad?
    private let finishOnce = Mutex<(@Sendable () -> Void)?>(nil)

    init(session: PeerSession, peer: PeerInfo, script: TouchScript?, notices: PadNotices) {
        self.session = session; self.peer = peer; self.script = script; self.notices = notices
    }

    /// Ends play (once): called when the instrument disconnects.
    /// - Thread: any.
    func instrumentLeft(_ why: String) {
        gone.withLock { $0 = why }
        finishOnce.withLock { f in f?(); f = nil }
    }

    func start(port: ControlPort, context: InputContext, finished: @escaping @Sendable () -> Void) throws {
        finishOnce.withLock { $0 = finished }
        let session = self.session
        let both: @Sendable (ControlEvent) -> Void = { event in
            port.send(event)
            session.forward(event)
        }
        let end: @Sendable () -> Void = { [self] in finishOnce.withLock { f in f?(); f = nil } }
        if let script {
            do {
                thread = try SystemThread(name: "bendsynth script") { [self] in
                    _ = RemoteCommand.sendScript(script, to: both, shouldStop: { stopFlag.load(ordering: .relaxed) })
                    end()
                }
            } catch {
                throw AppError.runtime("remote: cannot start the script: \(error)")
            }
            return
        }
        let pad = try RemotePad(session: session, peer: peer, pitchMap: context.pitchMap, tuning: context.tuning, monitor: context.mixer,
                                notices: notices, gone: { [self] in gone.withLock { $0 } }, onEvent: both, onFinish: end)
        try pad.start()
        self.pad = pad
    }

    func stop() {
        if let thread {
            stopFlag.store(true, ordering: .relaxed)
            thread.join()
            self.thread = nil
        }
        pad?.stop(); pad = nil
    }
}
