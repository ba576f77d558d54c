/// A sender's allowance of events (touch starts, moves, tilt) per second: a token
/// bucket of `burst` tokens refilled at `rate` per second. Touch ends never take one.
struct EventBudget {
    /// Tokens now (events that may go at once).
    private var tokens: Double
    /// Monotonic ns of the last refill; nil before the first event.
    private var last: UInt64?

    init(burst: Double) {
        tokens = burst
    }

    /// Takes a token if there is one.
    mutating func take(now: UInt64, rate: Double, burst: Double) -> Bool {
        refill(now: now, rate: rate, burst: burst)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// True when an event could go now (does not take it).
    mutating func available(now: UInt64, rate: Double, burst: Double) -> Bool {
        refill(now: now, rate: rate, burst: burst)
        return tokens >= 1
    }

    private mutating func refill(now: UInt64, rate: Double, burst: Double) {
        if let last, now > last { tokens = min(burst, tokens + Double(now - last) / 1e9 * rate) }
        if last == nil || now > last! { last = now }
    }
}
