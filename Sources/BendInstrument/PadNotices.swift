// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import BendSystem
import Synchronization

/// Short messages for the player of `play` (a peer's TEXT with the sender's name, a peer
/// connecting, leaving or being declined, a per-peer limit hit). While the terminal pad
/// is drawn they go on its status area (`PadStatus.notice`) for `shownFor` seconds —
/// writing to stderr would garble the pad; otherwise they go to `fallback` (stderr).
public final class PadNotices: @unchecked Sendable {
    /// How long one notice stays on the pad, in seconds.
    public let shownFor: Double
    private let fallback: @Sendable (String) -> Void
    private let state = Mutex<(padShown: Bool, text: String?, at: UInt64, pinned: String?)>((false, nil, 0, nil))

    /// - Parameter fallback: where notices go while no pad is drawn (the instrument's log:
    ///   stderr, prefixed "bendsynth: ").
    public init(shownFor: Double = 5, fallback: @escaping @Sendable (String) -> Void) {
        self.shownFor = shownFor
        self.fallback = fallback
    }

    /// The terminal pad is (`true`) or is no longer (`false`) drawn. - Thread: any.
    public func padShown(_ shown: Bool) {
        state.withLock { $0.padShown = shown; if !shown { $0.text = nil } }
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
