import BendAudio
import BendControl
import BendEngine
import BendInput
import Foundation
import Glibc
import Synchronization

/// `play`'s sources are BendControl's input sources (the protocol moved there).
typealias PlaySource = InputSource
typealias PlayContext = InputContext

extension InputContext {
    /// The context of a source playing into `output`.
    init(mixer: Mixer, output: AudioOutput, pitchMap: PitchMap, rate: Double) {
        self.init(mixer: mixer, output: AudioOutputStatus(output), pitchMap: pitchMap, rate: rate)
    }
}

/// An `AudioOutput` seen as sources see it.
final class AudioOutputStatus: OutputStatus {
    let output: AudioOutput
    init(_ output: AudioOutput) { self.output = output }
    var description: String { output.description }
    var xruns: Int { output.xruns }
    var failureDescription: String? { output.failureDescription }
}

/// The pad in the terminal.
final class TerminalSource: PlaySource, @unchecked Sendable {
    let name = "terminal"
    let endsPlay = true
    private var input: TerminalInput?
    private let failure = Mutex<String?>(nil)
    /// `play --bluetooth`: y/n at the pad answer invitations (keys go through a filter).
    private let prompt: InvitationPrompt?
    private var keyboard: RemoteKeyboard?
    /// Peers' messages and comings and goings, shown on the pad's status area.
    private let notices: PadNotices?

    init(prompt: InvitationPrompt? = nil, notices: PadNotices? = nil) {
        self.prompt = prompt
        self.notices = notices
    }

    /// Why the terminal failed, if it did.
    var failureDescription: String? { failure.withLock { $0 } }

    func start(port: ControlPort, context: PlayContext, finished: @escaping @Sendable () -> Void) throws {
        let mixer = context.mixer, output = context.output, prompt = self.prompt, notices = self.notices
        do { keyboard = try prompt.map { p in try RemoteKeyboard(onText: { _ in }, textLine: false, intercept: { p.key($0) }) } } catch {
            throw AppError.runtime("cannot use the terminal: \(error)")
        }
        let input = TerminalInput(inputFD: keyboard?.padFD ?? STDIN_FILENO, pitchMap: context.pitchMap, status: { s in
            s.peak = Double(mixer.peak)
            s.limiterGain = Double(mixer.limiterGain)
            s.voices = mixer.activeVoices
            s.xruns = output.xruns
            s.device = prompt?.line ?? output.failureDescription.map { "stopped: \($0)" } ?? output.description
            s.notice = notices?.current()
        }, onEvent: { port.send($0) }, onFinish: { [self] reason in
            if case .failed(let e) = reason { self.failure.withLock { $0 = "\(e)" } }
            finished()
        })
        do {
            try keyboard?.start()
            try input.start()
        } catch {
            keyboard?.stop()
            throw AppError.runtime("cannot use the terminal: \(error)")
        }
        self.input = input
        notices?.padShown(true)
    }

    func stop() {
        notices?.padShown(false)
        input?.stop()
        keyboard?.stop()
        keyboard = nil
    }
}

/// A touch script played live, stamped by stream frames: `play --script FILE.jsonl`,
/// and `replay RECORDING` (a decoded evdev recording) to ALSA.
final class ScriptSource: PlaySource, @unchecked Sendable {
    let name: String
    let endsPlay = false
    let script: TouchScript
    private let stopFlag = Atomic<Bool>(false)
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    init(path: String) throws {
        name = "script '\(path)'"
        do { script = try TouchScript.load(path: path) } catch {
            throw AppError.input("\(error)")
        }
    }

    init(name: String, script: TouchScript) {
        self.name = name
        self.script = script
    }

    func start(port: ControlPort, context: PlayContext, finished: @escaping @Sendable () -> Void) throws {
        let mixer = context.mixer
        let player = ScriptPlayer(script: script, port: port, rate: context.rate, position: { mixer.position })
        player.prefill(startFrame: mixer.position)
        let t = Thread { [self] in
            if player.run(shouldStop: { self.stopFlag.load(ordering: .relaxed) }) {
                finished()
            }
            self.done.signal()
        }
        t.name = "bendsynth script"
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
