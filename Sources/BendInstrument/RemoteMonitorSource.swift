// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendPeers
import Synchronization

/// `remote --monitor`: the controller's pad (or touch script) as a source of the local
/// instrument, so every event goes to the local engine through its `ControlPort` (the
/// same path as `play`) and to the remote instrument through the link. It joins the
/// terminal pad (BendInput) and the peer link (BendPeers), so it lives in the assembly,
/// the one layer that sees both. The instrument ends when the pad quits, the script is
/// done, or the instrument leaves.
public final class RemoteMonitorSource: InputSource, @unchecked Sendable {
    public let name = "remote pad (monitored)"
    public let endsPlay = true
    public let link: RemoteLink
    public let script: TouchScript?
    /// Why the instrument left, once it did.
    let gone = Mutex<String?>(nil)
    /// Peers' messages: on the pad while it is drawn.
    let notices: PadNotices
    private var pad: RemotePad?
    private let finishOnce = Mutex<(@Sendable () -> Void)?>(nil)

    public init(link: RemoteLink, script: TouchScript?, notices: PadNotices) {
        self.link = link; self.script = script; self.notices = notices
    }

    /// Ends play (once): called when the link ends for good (gave up reconnecting, declined).
    /// - Thread: any.
    public func instrumentLeft(_ why: String) {
        gone.withLock { $0 = why }
        finishOnce.withLock { f in f?(); f = nil }
    }

    public func start(port: ControlPort, context: InputContext, finished: @escaping @Sendable () -> Void) throws {
        finishOnce.withLock { $0 = finished }
        let link = self.link
        let both: @Sendable (ControlEvent) -> Void = { event in
            port.send(event)
            link.forward(event)
        }
        let end: @Sendable () -> Void = { [self] in finishOnce.withLock { f in f?(); f = nil } }
        if let script {
            // On the link's session loop, at the script's times; here too as it goes —
            // from the first period on (the output starts after its sources), so the
            // local take keeps the script's times.
            let meters = context.meters, session = link.session
            @Sendable func begin() {
                guard meters.position > 0 else { session.schedule(after: 1_000_000, begin); return }
                link.play(script, local: { port.send($0) }, done: { _ in end() })
            }
            begin()
            return
        }
        let pad = try RemotePad(link: link, pitchMap: context.pitchMap, tuning: context.tuning, monitor: context.meters,
                                notices: notices, onEvent: both, onFinish: end)
        try pad.start()
        self.pad = pad
    }

    public func stop() {
        if script != nil { link.stop() }
        pad?.stop(); pad = nil
    }
}
