// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendInput
import BendPeers
import Glibc

/// The pad of `remote` (alone or `--monitor`): a `TerminalInput` reading standard input
/// once, its decoded events through a `RemoteKeyboard` (`/` types a text message to the
/// instrument) on to the pad; its status line shows the link (round-trip time, the
/// instrument's xruns) and the peers' notices.
public final class RemotePad: @unchecked Sendable {
    private let keyboard: RemoteKeyboard
    private let input: TerminalInput
    private let notices: PadNotices

    /// - Parameters:
    ///   - monitor: the local meters when the pad also sounds here (`--monitor`): its peak
    ///     and voices are shown; nil: the instrument's voices.
    ///   - link: the instrument's link; its state is the status line.
    ///   - onEvent: each pad event, on the pad's reader thread.
    ///   - onFinish: once, when the pad ends (q, Ctrl-C, hang-up, `stop`).
    /// - Throws: nothing now (the terminal is opened by `start`); kept for its callers.
    public init(link: RemoteLink, pitchMap: PitchMap = .linear, tuning: Tuning? = nil, monitor: InstrumentMeters?, notices: PadNotices,
         onEvent: @escaping @Sendable (ControlEvent) -> Void, onFinish: @escaping @Sendable () -> Void) throws {
        let session = link.session
        let keyboard = RemoteKeyboard(onText: { text in if !text.isEmpty { session.send(.text(text)) } }, maxTextBytes: PeerProtocol.maxTextBytes)
        self.keyboard = keyboard
        self.notices = notices
        let place = monitor == nil ? "" : ", monitored here"
        input = TerminalInput(inputFD: STDIN_FILENO, pitchMap: pitchMap, tuning: tuning, status: { s in
            let (line, link) = link.status()
            if let meters = monitor?.snapshot {
                s.peak = Double(meters.peak)
                s.limiterGain = Double(meters.limiterGain)
                s.voices = meters.voices
            } else {
                s.voices = Int(link?.remoteVoices ?? 0)
            }
            s.xruns = Int(link?.remoteXruns ?? 0)
            s.notice = notices.current()
            if let typed = keyboard.line {
                s.device = "message: \(typed)_  (Enter sends, Esc cancels)"
            } else {
                s.device = line + (link != nil ? "\(place); / types a message" : "")
            }
        }, filter: { keyboard.filter($0) }, onEvent: onEvent, onFinish: { _ in onFinish() })
    }

    /// Raw mode, the pad's reader and view; notices go on the pad from now.
    /// - Throws: `InstrumentError(.runtime)` when the terminal cannot be used.
    public func start() throws {
        do {
            try input.start()
        } catch {
            throw InstrumentError(.runtime, "cannot use the terminal: \(error)")
        }
        notices.padShown(true)
    }

    /// Ends the pad (its touches end) and gives the terminal back. Once, after `start`.
    public func stop() {
        input.stop()  // restores the terminal first: what stderr took is written after
        notices.padShown(false)
    }
}
