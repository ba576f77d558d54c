import BendControl
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
    let link: RemoteLink
    let script: TouchScript?
    /// Why the instrument left, once it did.
    let gone = Mutex<String?>(nil)
    private let stopFlag = Atomic<Bool>(false)
    private var thread: SystemThread?
    /// Peers' messages: on the pad while it is drawn.
    let notices: PadNotices
    private var pad: RemotePad?
    private let finishOnce = Mutex<(@Sendable () -> Void)?>(nil)

    init(link: RemoteLink, script: TouchScript?, notices: PadNotices) {
        self.link = link; self.script = script; self.notices = notices
    }

    /// Ends play (once): called when the link ends for good (gave up reconnecting, declined).
    /// - Thread: any.
    func instrumentLeft(_ why: String) {
        gone.withLock { $0 = why }
        finishOnce.withLock { f in f?(); f = nil }
    }

    func start(port: ControlPort, context: InputContext, finished: @escaping @Sendable () -> Void) throws {
        finishOnce.withLock { $0 = finished }
        let link = self.link
        let both: @Sendable (ControlEvent) -> Void = { event in
            port.send(event)
            link.forward(event)
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
        let pad = try RemotePad(link: link, pitchMap: context.pitchMap, tuning: context.tuning, monitor: context.meters,
                                notices: notices, onEvent: both, onFinish: end)
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
