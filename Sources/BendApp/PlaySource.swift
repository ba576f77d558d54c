import BendAudio
import BendControl
import BendEngine
import BendInput
import Foundation
import Glibc
import Synchronization

/// What an input source of `play` sees of the instrument.
struct PlayContext: @unchecked Sendable {
    var mixer: Mixer
    var output: AudioOutput
    var pitchMap: PitchMap
    /// Frames per second.
    var rate: Double
}

/// One input source of `play`: the terminal, a touch script, (later) devices and peers.
/// Each gets its own `ControlPort` (its own event ring: single producer).
protocol PlaySource: AnyObject, Sendable {
    /// For messages.
    var name: String { get }
    /// True when play ends as this source ends (the terminal: `q`, hang-up).
    var endsPlay: Bool { get }
    /// Starts the source; it calls `finished` once if it ends by itself.
    /// - Throws: `AppError` when it cannot start.
    func start(port: ControlPort, context: PlayContext, finished: @escaping @Sendable () -> Void) throws
    /// Stops the source and waits for it; its touches end (by it or by the caller's
    /// `port.releaseAll()`, which follows).
    func stop()
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
