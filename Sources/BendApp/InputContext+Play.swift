import BendAudio
import BendControl
import BendEngine
import BendInput

extension InputContext {
    /// The context of a source playing into `output`.
    init(mixer: Mixer, output: AudioOutput, pitchMap: PitchMap, rate: Double, tuning: Tuning? = nil) {
        self.init(meters: InstrumentMeters(mixer: mixer), output: AudioOutputStatus(output), pitchMap: pitchMap, rate: rate, tuning: tuning)
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

extension TerminalSource {
    /// `play`'s terminal pad: with `prompt` (`play --bluetooth`), y/n at the pad answer
    /// invitations and the question takes the status line; `notices` (peers' messages,
    /// comings and goings) show on the pad's status area while it is drawn.
    convenience init(prompt: InvitationPrompt?, notices: PadNotices?) {
        var filter: (@Sendable (TerminalEvent) -> Bool)?
        var deviceLine: (@Sendable () -> String?)?
        if let prompt {
            let keyboard = RemoteKeyboard(onText: { _ in }, textLine: false, intercept: { prompt.key($0) })
            filter = { keyboard.filter($0) }
            deviceLine = { prompt.line }
        }
        var notice: (@Sendable () -> String?)?
        var shown: (@Sendable (Bool) -> Void)?
        if let notices {
            notice = { notices.current() }
            shown = { notices.padShown($0) }
        }
        self.init(filter: filter, deviceLine: deviceLine, notice: notice, shown: shown)
    }
}
