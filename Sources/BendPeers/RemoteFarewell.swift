// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem

/// Why `remote`'s link to its instrument ended, in the player's words: who ended it
/// (the instrument's BYE, or this side) and what it means. A remote that was stopped
/// (Ctrl-Z, SIGSTOP) or asleep longer than the heartbeat timeout is dropped by the
/// instrument: it is told so, not that "the instrument left".
public enum RemoteFarewell {
    public static func describe(_ change: PeerStateChange) -> String {
        let detail = change.detail.isEmpty ? "" : " (\(UntrustedText.escaped(change.detail)))"   // the other side's words
        guard let reason = change.reason else { return "the link to the instrument closed\(detail)" }
        switch (reason, change.byPeer) {
        case (.heartbeatTimeout, true):
            return "the instrument heard nothing from this remote and dropped it\(detail); was this program stopped, or the machine asleep?"
        case (.heartbeatTimeout, false):
            return "the instrument stopped answering\(detail)"
        case (.normal, true):
            return "the instrument left\(detail)"
        case (.normal, false):
            return "this remote left\(detail)"
        case (.connectionLost, _):
            return "the link to the instrument was lost\(detail)"
        case (_, true):
            return "the instrument closed the link: \(reason)\(detail)"
        case (_, false):
            return "this remote closed the link: \(reason)\(detail)"
        }
    }
}
