import BendControl
import BendEngine
import BendInput
import BendPeers
import Foundation
import Glibc

/// The pad of `remote` (alone or `--monitor`): the terminal through a `RemoteKeyboard`
/// (`/` types a text message to the instrument) into a `TerminalInput` whose status line
/// shows the link (round-trip time, the instrument's xruns) and the peers' notices.
final class RemotePad: @unchecked Sendable {
    private let keyboard: RemoteKeyboard
    private let input: TerminalInput
    private let notices: PadNotices

    /// - Parameters:
    ///   - monitor: the local mixer when the pad also sounds here (`--monitor`): its peak
    ///     and voices are shown; nil: the instrument's voices.
    ///   - gone: why the instrument left, once it did.
    ///   - onEvent: each pad event, on the pad's reader thread.
    ///   - onFinish: once, when the pad ends (q, Ctrl-C, hang-up, `stop`).
    /// - Throws: `AppError.runtime` when the terminal cannot be used.
    init(session: PeerSession, peer: PeerInfo, pitchMap: PitchMap = .linear, monitor: Mixer?, notices: PadNotices,
         gone: @escaping @Sendable () -> String?, onEvent: @escaping @Sendable (ControlEvent) -> Void,
         onFinish: @escaping @Sendable () -> Void) throws {
        let keyboard: RemoteKeyboard
        do {
            keyboard = try RemoteKeyboard(onText: { text in if !text.isEmpty { session.send(.text(text)) } })
        } catch { throw AppError.runtime("cannot use the terminal: \(error)") }
        self.keyboard = keyboard
        self.notices = notices
        let place = monitor == nil ? "" : ", monitored here"
        input = TerminalInput(inputFD: keyboard.padFD, pitchMap: pitchMap, status: { s in
            let link = session.linkStatus(of: peer.id)
            let rtt = link?.roundTrip.map { String(format: "%.1f ms", $0 * 1e3) } ?? "…"
            if let mixer = monitor {
                s.peak = Double(mixer.peak)
                s.limiterGain = Double(mixer.limiterGain)
                s.voices = mixer.activeVoices
            } else {
                s.voices = Int(link?.remoteVoices ?? 0)
            }
            s.xruns = Int(link?.remoteXruns ?? 0)
            s.notice = notices.current()
            if let line = keyboard.line {
                s.device = "message: \(line)_  (Enter sends, Esc cancels)"
            } else {
                s.device = gone().map { "\(peer.name): disconnected (\($0))" }
                    ?? "\(peer.name): connected, RTT \(rtt)\(place); / types a message"
            }
        }, onEvent: onEvent, onFinish: { _ in onFinish() })
    }

    /// Raw mode, the keyboard's and the pad's threads; notices go on the pad from now.
    /// - Throws: `AppError.runtime` (the keyboard is stopped again).
    func start() throws {
        do {
            try keyboard.start()
            try input.start()
        } catch {
            keyboard.stop()
            throw AppError.runtime("cannot use the terminal: \(error)")
        }
        notices.padShown(true)
    }

    /// Ends the pad (its touches end) and gives the terminal back. Once, after `start`.
    func stop() {
        notices.padShown(false)
        input.stop()
        keyboard.stop()
    }
}
