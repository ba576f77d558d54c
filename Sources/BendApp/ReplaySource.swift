import BendControl
import Foundation
import Synchronization

/// A decoded recording played live (`bendsynth replay RECORDING` without -o), stamped
/// by stream frames like `--script`.
final class ReplaySource: PlaySource, @unchecked Sendable {
    let name: String
    let endsPlay = false
    let script: TouchScript
    private let stopFlag = Atomic<Bool>(false)
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    init(name: String, script: TouchScript) {
        self.name = name
        self.script = script
    }

    func start(port: ControlPort, context: PlayContext, finished: @escaping @Sendable () -> Void) throws {
        let mixer = context.mixer
        let player = ScriptPlayer(script: script, port: port, rate: context.rate, position: { mixer.position })
        let start = mixer.position
        let t = Thread { [self] in
            if player.run(startFrame: start, shouldStop: { self.stopFlag.load(ordering: .relaxed) }) { finished() }
            self.done.signal()
        }
        t.name = "bendsynth replay"
        thread = t
        t.start()
    }

    func stop() {
        guard thread != nil else { return }
        stopFlag.store(true, ordering: .relaxed)
        done.wait()
        thread = nil
    }
}
