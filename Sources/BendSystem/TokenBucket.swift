// SPDX-License-Identifier: GPL-3.0-or-later
/// A token bucket: `rate` tokens a second, at most `burst` at once, full at the start.
/// The one rate limit of the network sources (OSC senders, peers, web pads): how many
/// events a sender may send at once (`burst`) and on average (`rate`). Times are
/// monotonic ns; a time earlier than the latest one seen (threads read the clock before
/// they take a lock) adds nothing.
public struct TokenBucket: Sendable, Equatable {
    public let rate: Double
    public let burst: Double
    /// Tokens now (below 0 after `spend` went into debt).
    public private(set) var tokens: Double
    /// Monotonic ns of the latest refill; nil before the first use.
    private var last: UInt64?

    public init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
        tokens = burst
    }

    /// Takes a token if there is one.
    public mutating func take(now: UInt64) -> Bool {
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// True when a token could be taken now (takes none).
    public mutating func available(now: UInt64) -> Bool {
        refill(now: now)
        return tokens >= 1
    }

    /// Spends `count` tokens at once, into debt if there are fewer: false when the bucket
    /// is then below zero (a web pad's read of several messages counts them all; going
    /// over closes that connection, so the debt is never paid).
    public mutating func spend(_ count: Int, now: UInt64) -> Bool {
        refill(now: now)
        tokens -= Double(count)
        return tokens >= 0
    }

    private mutating func refill(now: UInt64) {
        if let last, now > last { tokens = min(burst, tokens + Double(now - last) / 1e9 * rate) }
        if last.map({ now > $0 }) ?? true { last = now }
    }
}
