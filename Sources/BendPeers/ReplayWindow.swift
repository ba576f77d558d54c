// SPDX-License-Identifier: GPL-3.0-or-later
/// Which datagram counters of one peer were already taken (docs/PROTOCOL.md, "Datagrams"):
/// the highest, and one bit for each of the `width` counters below it (the sliding window
/// of IPsec and WireGuard, RFC 6479, in one word). A counter is fresh when it is above the
/// highest, or less than `width` below it and not yet seen; anything else is a replay or
/// arrived too late, and is dropped.
///
/// Mark a counter only after its datagram authenticated: a forged counter must not move
/// the window.
/// - Thread: one owner (the session's I/O thread).
struct ReplayWindow: Sendable {
    /// How far below the highest counter a datagram may still arrive (reordering).
    static let width: UInt64 = 64
    /// The highest counter taken; 0: none yet (senders count from 1).
    private(set) var highest: UInt64 = 0
    /// Bit i set: counter `highest - i` was taken.
    private var seen: UInt64 = 0

    /// Why a counter is refused.
    enum Verdict: Equatable { case fresh, replayed, tooOld }

    func check(_ counter: UInt64) -> Verdict {
        if counter > highest { return .fresh }
        if counter == 0 { return .tooOld }
        let back = highest - counter
        guard back < Self.width else { return .tooOld }
        return seen & (1 << back) == 0 ? .fresh : .replayed
    }

    /// Takes `counter` (it was fresh and its datagram authenticated).
    mutating func mark(_ counter: UInt64) {
        if counter > highest {
            let shift = counter - highest
            seen = shift >= Self.width ? 0 : seen << shift
            seen |= 1
            highest = counter
        } else {
            seen |= 1 << (highest - counter)
        }
    }
}
