// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem

/// What the player is told of the phones (on stderr, like the peers' comings and
/// goings): a phone connecting and leaving, a connection refused (a wrong token, a ninth
/// phone, too many waiting to pair) or closed for what it sent (a malformed message,
/// over its rate). Refusals and closes are anyone's to repeat: at most a line per kind
/// and address every 10 s, the rest counted (`RateLimitedLog`).
/// - Thread: any (the server's service thread).
final class WebConnectionLog: Sendable {
    private let log: @Sendable (String) -> Void
    private let limited: RateLimitedLog

    init(log: @escaping @Sendable (String) -> Void) {
        self.log = log
        limited = RateLimitedLog(interval: 10) { log($0) }
    }

    /// `connection` paired as phone `phone`.
    func paired(phone: Int, address: String) {
        log("web: phone \(phone) connected from \(address)")
    }

    /// Phone `phone` closed or went (its touches ended).
    func left(phone: Int) {
        log("web: phone \(phone) left; its touches ended")
    }

    /// The instrument closed a connection (`code`, `why` as the page is told).
    /// - Parameter phone: its number when it had paired.
    func closed(phone: Int?, address: String, code: WebCloseCode, why: String) {
        let who = phone.map { "phone \($0) (\(address))" } ?? address
        switch code {
        case .wrongToken, .full:
            limited.line("refused \(code) \(address)", "web: refused \(who): \(why)")
        case .badMessage, .overLimit:
            limited.line("closed \(code) \(address)", "web: closed \(who): \(why)")
        case .goingAway:
            break
        }
    }

    /// Says the counts of lines held back (the server's timer).
    func flush() { limited.flush() }
}
