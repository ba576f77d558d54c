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
    private let state = Mutex<(padShown: Bool, text: String?, at: UInt64)>((false, nil, 0))

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
    /// `UntrustedText`). - Thread: any.
    public func post(_ text: String) {
        let line = UntrustedText.escaped(String(text.map { $0.isNewline ? " " : $0 }))
        let now = MonotonicClock.nanos()
        let onPad = state.withLock { s -> Bool in
            guard s.padShown else { return false }
            s.text = line
            s.at = now
            return true
        }
        if !onPad { fallback(line) }
    }

    /// The notice to draw now, or nil once it is `shownFor` seconds old. - Thread: any.
    public func current(now: UInt64 = MonotonicClock.nanos()) -> String? {
        state.withLock { s in
            guard let text = s.text, now < s.at || Double(now - s.at) / 1e9 < shownFor else { return nil }
            return text
        }
    }
}

extension PadNotices: PeerNotices {}
