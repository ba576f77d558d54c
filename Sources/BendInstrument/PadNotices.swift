// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import BendSystem
import Glibc
import Synchronization

/// Short messages for the player of `play` (a peer's TEXT with the sender's name, a peer
/// connecting, leaving or being declined, a per-peer limit hit). While the terminal pad
/// is drawn they go on its status area (`PadStatus.notice`) for `shownFor` seconds —
/// writing to stderr would garble the pad; otherwise they go to `fallback` (stderr).
///
/// While the pad is drawn on the terminal stderr writes to, it also takes stderr itself
/// (`StderrTap`): a line anything writes there — a message of play's, a library's — goes
/// on the status area instead of over the pad, and every such line is written to stderr
/// in order once the pad is gone, so nothing said while it was drawn is lost.
public final class PadNotices: @unchecked Sendable {
    /// How long one notice stays on the pad, in seconds.
    public let shownFor: Double
    private let fallback: @Sendable (String) -> Void
    private let state = Mutex<(padShown: Bool, text: String?, at: UInt64, pinned: String?)>((false, nil, 0, nil))
    /// The tap while the pad is drawn, and the lines it took (written out after).
    private let tapped = Mutex<(tap: StderrTap?, lines: [String])>((nil, []))
    /// Whether to take stderr while the pad is drawn: when it is the pad's terminal.
    private let takesStderr: @Sendable () -> Bool

    /// - Parameter fallback: where notices go while no pad is drawn (the instrument's log:
    ///   stderr, prefixed "bendsynth: ").
    ///   - takesStderr: whether to take stderr while the pad is drawn (default: when
    ///     stderr is the terminal the pad draws on, standard output).
    public init(shownFor: Double = 5, fallback: @escaping @Sendable (String) -> Void,
                takesStderr: @escaping @Sendable () -> Bool = { StderrTap.sharesTerminal(with: STDOUT_FILENO) }) {
        self.shownFor = shownFor
        self.fallback = fallback
        self.takesStderr = takesStderr
    }

    /// The terminal pad is (`true`) or is no longer (`false`) drawn. Call `false` after
    /// the terminal is restored: the lines stderr took are written then. - Thread: any.
    public func padShown(_ shown: Bool) {
        state.withLock { $0.padShown = shown; if !shown { $0.text = nil } }
        if shown { takeStderr() } else { giveBackStderr() }
    }

    /// Starts the tap (once per showing; a tap that cannot start leaves stderr as it is).
    private func takeStderr() {
        guard takesStderr(), tapped.withLock({ $0.tap == nil }) else { return }
        let tap = try? StderrTap { [weak self] line in self?.took(line) }
        tapped.withLock { $0.tap = tap }
    }

    /// One line stderr took: on the status area, kept for after the pad.
    private func took(_ line: String) {
        tapped.withLock { $0.lines.append(line) }
        var text = Substring(line)
        if text.hasPrefix("bendsynth: ") { text = text.dropFirst("bendsynth: ".count) }
        if !text.isEmpty { _ = post(String(text), pin: false) }
    }

    /// Ends the tap and writes, in order, what it took.
    private func giveBackStderr() {
        guard let tap = tapped.withLock({ t in defer { t.tap = nil }; return t.tap }) else { return }
        tap.end()
        let lines = tapped.withLock { t in defer { t.lines = [] }; return t.lines }
        for line in lines { StderrTap.write(line: UntrustedText.escaped(line)) }
    }

    /// Shows `text` (one line; newlines become spaces, other controls are written out:
    /// `UntrustedText`).
    /// - Parameter pin: keep it on the pad after `shownFor` (a failure play goes on
    ///   after: a recording that stopped), whenever no newer notice is shown.
    /// - Returns: whether it went on the pad (else it went to `fallback`). - Thread: any.
    @discardableResult
    public func post(_ text: String, pin: Bool) -> Bool {
        let line = UntrustedText.escaped(String(text.map { $0.isNewline ? " " : $0 }))
        let now = MonotonicClock.nanos()
        let onPad = state.withLock { s -> Bool in
            if pin { s.pinned = line }
            guard s.padShown else { return false }
            s.text = line
            s.at = now
            return true
        }
        if !onPad { fallback(line) }
        return onPad
    }

    /// Shows `text` for `shownFor` seconds (see `post(_:pin:)`). - Thread: any.
    public func post(_ text: String) { post(text, pin: false) }

    /// The notice to draw now, or nil once it is `shownFor` seconds old. - Thread: any.
    public func current(now: UInt64 = MonotonicClock.nanos()) -> String? {
        state.withLock { s in
            guard let text = s.text, now < s.at || Double(now - s.at) / 1e9 < shownFor else { return s.pinned }
            return text
        }
    }
}

extension PadNotices: PeerNotices {}
