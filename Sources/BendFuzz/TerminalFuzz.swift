// SPDX-License-Identifier: GPL-3.0-or-later
import BendInput

extension FuzzTarget {
    /// The terminal's byte stream (keys, SGR/urxvt/X10 mouse, kitty keys, pastes) through
    /// `TerminalDecoder` in reads of varying size and timing, then the pad: every touch it
    /// starts ends when the terminal hangs up. Seeds: realworld/terminal (RW-30…RW-38).
    static let terminal = FuzzTarget(name: "terminal", maxLength: 4096) { bytes in
        var decoder = TerminalDecoder()
        var pad = TerminalPad(geometry: PadGeometry(left: 1, top: 2, width: 60, height: 16))
        var ledger = TouchLedger("terminal")
        var now: UInt64 = 0
        for (read, nanos) in FuzzInput.reads(bytes) {
            ledger.apply(pad.handle(decoder.feed(read, at: nanos)))
            now = nanos
        }
        // Silence: every timeout fires (lone ESC, cut sequence, lost paste end).
        ledger.apply(pad.handle(decoder.tick(at: now + 10_000_000_000)))
        if decoder.nextDeadline != nil { violated("terminal", "a deadline is still pending after 10 s of silence") }
        ledger.apply(pad.end())
        ledger.checkAllEnded("the terminal hung up")
    }
}
