import BendControl
import BendInput
import BendPeers
import BendSystem
import Foundation
import Glibc
import Synchronization

/// `remote --monitor`: the controller's pad (or touch script) as a `play` source, so
/// every event goes to the local engine through its `ControlPort` (the same path as
/// `play`) and to the remote instrument through the session. Play ends when the pad
/// quits, the script is done, or the instrument leaves.
final class RemoteMonitorSource: PlaySource, @unchecked Sendable {
    let name = "remote pad (monitored)"
    let endsPlay = true
    let session: PeerSession
    let peer: PeerInfo
    let script: TouchScript?
    /// Why the instrument left, once it did.
    let gone = Mutex<String?>(nil)
    private let stopFlag = Atomic<Bool>(false)
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)
    private var keyboard: RemoteKeyboard?
    private var input: TerminalInput?
    private let finishOnce = Mutex<(@Sendable () -> Void)?>(nil)

    init(session: PeerSession, peer: PeerInfo, script: TouchScript?) {
        self.session = session; self.peer = peer; self.script = script
    }

    /// Ends play (once): called when the instrument disconnects.
    /// - Thread: any.
    func instrumentLeft(_ why: String) {
        gone.withLock { $0 = why }
        finishOnce.withLock { f in f?(); f = nil }
    }

    func start(port: ControlPort, context: PlayContext, finished: @escaping @Sendable () -> Void) throws {
        finishOnce.withLock { $0 = finished }
        let session = self.session
        let both: @Sendable (ControlEvent) -> Void = { event in
            port.send(event)
            RemoteCommand.forward(event, to: session)
        }
        let end: @Sendable () -> Void = { [self] in finishOnce.withLock { f in f?(); f = nil } }
        if let script {
            let t = Thread { [self] in
                let start = MonotonicClock.nanos()
                for entry in script.entries {
                    let due = start + UInt64(entry.time * 1e9)
                    while MonotonicClock.nanos() < due, !stopFlag.load(ordering: .relaxed) {
                        usleep(UInt32(min(5_000, (due - min(due, MonotonicClock.nanos())) / 1000 + 1)))
                    }
                    if stopFlag.load(ordering: .relaxed) { break }
                    both(entry.event)
                }
                end()
                done.signal()
            }
            t.name = "bendsynth remote script"
            thread = t
            t.start()
            return
        }
        let keyboard: RemoteKeyboard
        do {
            keyboard = try RemoteKeyboard(onText: { text in if !text.isEmpty { session.send(.text(text)) } })
        } catch { throw AppError.runtime("cannot use the terminal: \(error)") }
        let mixer = context.mixer, peer = self.peer
        let input = TerminalInput(inputFD: keyboard.padFD, pitchMap: context.pitchMap, status: { [self] s in
            let link = session.linkStatus(of: peer.id)
            let rtt = link?.roundTrip.map { String(format: "%.1f ms", $0 * 1e3) } ?? "…"
            s.peak = Double(mixer.peak)
            s.voices = mixer.activeVoices
            s.xruns = Int(link?.remoteXruns ?? 0)
            if let line = keyboard.line {
                s.device = "message: \(line)_  (Enter sends, Esc cancels)"
            } else {
                s.device = self.gone.withLock { $0 }.map { "\(peer.name): disconnected (\($0))" }
                    ?? "\(peer.name): connected, RTT \(rtt), monitored here; / types a message"
            }
        }, onEvent: both, onFinish: { _ in end() })
        do {
            try keyboard.start()
            try input.start()
        } catch {
            keyboard.stop()
            throw AppError.runtime("cannot use the terminal: \(error)")
        }
        self.keyboard = keyboard
        self.input = input
    }

    func stop() {
        if thread != nil {
            stopFlag.store(true, ordering: .relaxed)
            done.wait()
            thread = nil
        }
        input?.stop(); input = nil
        keyboard?.stop(); keyboard = nil
    }
}
