// SPDX-License-Identifier: GPL-3.0-or-later
import BendOSC

extension FuzzTarget {
    /// OSC packets and TUIO bundles: the input's datagrams (`FuzzInput.datagrams`) from two
    /// senders, 1 ms apart, through the interpreter; the senders fall silent (past the TUIO
    /// timeout and the change-only senders' rest timeout) and every touch they started ends. Seeds: realworld/other RW-45/47/48 (each sequence also joined).
    static let osc = FuzzTarget(name: "osc", maxLength: 4096) { bytes in
        final class Box: @unchecked Sendable { var ledger = TouchLedger("osc") }
        let box = Box()
        let interpreter = OSCInterpreter(timeout: 2, restTimeout: 5, emit: { box.ledger.apply($0) })
        var now: UInt64 = 1_000_000_000
        for (i, datagram) in FuzzInput.datagrams(bytes).enumerated() {
            _ = interpreter.handle(datagram: datagram, from: i % 3 == 2 ? "127.0.0.2:9001" : "127.0.0.1:9000", now: now)
            now += 1_000_000
        }
        interpreter.expire(now: now + 6_000_000_000)   // past both silences (TUIO 2 s, change-only 5 s)
        if interpreter.activeTouches != 0 {
            violated("osc", "\(interpreter.activeTouches) touches held after every sender fell silent")
        }
        interpreter.endAll()
        box.ledger.checkAllEnded("every sender fell silent")
    }
}
