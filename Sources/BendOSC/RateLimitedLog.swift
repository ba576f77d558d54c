/// Log lines that a sender can repeat at will (refused connections, touches over its
/// limit, events over its rate), at most one line per key (a kind of problem and a
/// sender) per second. Lines held back are counted, and the count is said once their
/// second is over, on a line of its own: the held line's text with " [N more like this]"
/// (by `flush`, every 50 ms on the receive loop, or before the key's next line) — so a
/// flood costs about a line a second, and the log still says how much happened.
///
/// - Thread: one thread (the OSC receive loop).
final class RateLimitedLog {
    /// One line per key per this many ns.
    static let interval: UInt64 = 1_000_000_000
    /// Keys remembered at once; beyond, lines share one key ("others").
    static let maxKeys = 256

    private struct Key {
        var last: UInt64
        var held: Int
        var message: String
    }

    private let log: (String) -> Void
    private var keys: [String: Key] = [:]
    /// Lines written, and lines held back (counted, not written), since the start.
    private(set) var written = 0
    private(set) var held = 0

    init(log: @escaping (String) -> Void) {
        self.log = log
    }

    /// Writes `message` unless a line of `key` was written less than a second ago (then
    /// counts it). The count of lines held back before it is said first.
    func line(_ key: String, now: UInt64, _ message: @autoclosure () -> String) {
        var key = key
        if keys[key] == nil && keys.count >= Self.maxKeys {
            forgetQuiet(now: now)
            if keys.count >= Self.maxKeys { key = "others" }
        }
        if var k = keys[key], now &- k.last < Self.interval {
            k.held += 1
            keys[key] = k
            held += 1
            return
        }
        if let k = keys[key], k.held > 0 { write(k.message + Self.suffix(k.held)) }
        let text = message()
        write(text)
        keys[key] = Key(last: now, held: 0, message: text)
    }

    /// Says the counts of lines held back whose second is over. - Thread: the loop's timer.
    func flush(now: UInt64) {
        for (key, k) in keys where k.held > 0 && now &- k.last >= Self.interval {
            write(k.message + Self.suffix(k.held))
            keys[key] = Key(last: now, held: 0, message: k.message)
        }
        forgetQuiet(now: now)
    }

    /// " [N more like this]": ends a line that stands for N lines held back (not written).
    static func suffix(_ n: Int) -> String { " [\(n) more like this]" }

    private func write(_ text: String) {
        written += 1
        log(text)
    }

    /// Forgets keys with nothing held back and no line for 10 s.
    private func forgetQuiet(now: UInt64) {
        keys = keys.filter { $0.value.held > 0 || now &- $0.value.last < 10 * Self.interval }
    }
}

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
