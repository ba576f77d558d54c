// SPDX-License-Identifier: GPL-3.0-or-later
import BendWeb

extension FuzzTarget {
    /// The web pad's WebSocket messages: a paired connection sends the input's messages
    /// (`FuzzInput.datagrams`) through `WebSessions` (decoder, limits, touch namespace);
    /// a refused message closes the connection; at the close every touch it started ends.
    /// Seeds: the page's messages.
    static let webMessages = FuzzTarget(name: "web-messages", maxLength: 4096) { bytes in
        final class Box: @unchecked Sendable { var ledger = TouchLedger("web-messages") }
        let box = Box()
        let sessions = WebSessions(token: webFuzzToken, emit: { box.ledger.apply($0) })
        let (connection, refusal) = sessions.open(now: 1_000_000)
        if refusal != nil { violated("web-messages", "the first connection was refused") }
        guard case .keep = sessions.receive(connection, Array("h \(webFuzzToken.text)".utf8), now: 2_000_000) else {
            violated("web-messages", "pairing with the right token was refused")
        }
        var now: UInt64 = 3_000_000
        for message in FuzzInput.datagrams(bytes) {
            now += 1_000_000
            if case .close = sessions.receive(connection, message, now: now) { break }
        }
        sessions.close(connection)
        if sessions.touches != 0 { violated("web-messages", "\(sessions.touches) touches held after the close") }
        box.ledger.checkAllEnded("the connection closed")
    }
}

private let webFuzzToken = try! WebToken("fuzz-token-0123456789")
