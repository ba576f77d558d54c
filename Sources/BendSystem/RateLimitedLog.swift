// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// Log lines that something outside can repeat at will (an OSC sender's refused
/// connections and touches over its limit, a stranger trying keys on an instrument, a
/// library's error line per bad connection): at most one line per key (a kind of problem,
/// often with its sender) per `interval`. Lines held back are counted, and the count is
/// said, so a flood costs about a line per interval and the log still says how much
/// happened. Two ways to say it:
///
/// - `line(_:now:_:)`: once the key's interval is over (`flush`, which a timer of the
///   caller's loop calls, or before the key's next line), on a line of its own: the held
///   line's text with " [N more like this]";
/// - `line(_:now:counting:)`: in the key's next line, which the caller words with the
///   count ("… (and 9 more such attempts in the last 10 s)").
///
/// - Thread: any (under its lock); `log` is called under it, so it must not call back.
public final class RateLimitedLog: @unchecked Sendable {
    /// Seconds between two lines of one key.
    public let interval: Double
    /// Keys remembered at once; beyond, new keys share one ("others").
    public let maxKeys: Int

    private struct Key {
        var last: UInt64
        var held: Int
        var message: String
    }
    private struct State {
        var keys: [String: Key] = [:]
        var written = 0
        var held = 0
    }
    private let state = Mutex(State())
    private let log: (String) -> Void
    private var nanos: UInt64 { UInt64(interval * 1e9) }

    /// - Parameters:
    ///   - interval: seconds between two lines of one key.
    ///   - log: writes one line.
    public init(interval: Double, maxKeys: Int = 256, log: @escaping (String) -> Void) {
        self.interval = interval
        self.maxKeys = maxKeys
        self.log = log
    }

    /// Lines written, and lines held back (counted, not written), since the start.
    public var written: Int { state.withLock { $0.written } }
    public var held: Int { state.withLock { $0.held } }

    /// Writes `message` unless a line of `key` was written less than `interval` ago (then
    /// counts it). The count of lines held back before it is said first, on its own line.
    public func line(_ key: String, now: UInt64 = MonotonicClock.nanos(), _ message: @autoclosure () -> String) {
        state.withLock { s in
            guard let (key, held) = admit(key, now: now, &s) else { return }
            if held > 0, let k = s.keys[key] { write(k.message + Self.suffix(held), &s) }
            let text = message()
            write(text, &s)
            s.keys[key] = Key(last: now, held: 0, message: text)
        }
    }

    /// Writes `message(held)` unless a line of `key` was written less than `interval` ago
    /// (then counts it); `held` is the number of lines held back since the key's last
    /// line, for the message to say (`flush` leaves these keys alone).
    public func line(_ key: String, now: UInt64 = MonotonicClock.nanos(), counting message: (_ held: Int) -> String) {
        state.withLock { s in
            guard let (key, held) = admit(key, now: now, &s) else { return }
            write(message(held), &s)
            s.keys[key] = Key(last: now, held: 0, message: "")
        }
    }

    /// Says the counts of lines held back whose interval is over (keys of `line(_:now:_:)`).
    /// - Thread: the caller's timer.
    public func flush(now: UInt64 = MonotonicClock.nanos()) {
        state.withLock { s in
            for (key, k) in s.keys where k.held > 0 && !k.message.isEmpty && now &- k.last >= nanos {
                write(k.message + Self.suffix(k.held), &s)
                s.keys[key] = Key(last: now, held: 0, message: k.message)
            }
            forgetQuiet(now: now, &s)
        }
    }

    /// " [N more like this]": ends a line that stands for N lines held back (not written).
    public static func suffix(_ n: Int) -> String { " [\(n) more like this]" }

    /// The key to write under and the count held back before, or nil when held back now.
    private func admit(_ key: String, now: UInt64, _ s: inout State) -> (String, Int)? {
        var key = key
        if s.keys[key] == nil && s.keys.count >= maxKeys {
            forgetQuiet(now: now, &s)
            if s.keys.count >= maxKeys { key = "others" }
        }
        if var k = s.keys[key], now &- k.last < nanos {
            k.held += 1
            s.keys[key] = k
            s.held += 1
            return nil
        }
        return (key, s.keys[key]?.held ?? 0)
    }

    private func write(_ text: String, _ s: inout State) {
        s.written += 1
        log(text)
    }

    /// Forgets keys with nothing held back and no line for 10 intervals.
    private func forgetQuiet(now: UInt64, _ s: inout State) {
        let quiet = 10 * nanos
        s.keys = s.keys.filter { $0.value.held > 0 || now &- $0.value.last < quiet }
    }
}
