/// At most one line per `interval` about a repeated event (wrong-key attempts on an
/// instrument: a stranger trying keys must not flood the player's screen); the next line
/// shown says how many were left out.
/// - Thread: one owner (a value; keep it under a lock when several threads report).
public struct NoticeRateLimiter: Sendable {
    /// Seconds between two lines.
    public let interval: Double
    private var lastShown: UInt64?
    private var suppressed = 0

    public init(interval: Double) { self.interval = interval }

    /// A line may be shown now: how many events were left out before it, and the interval.
    public struct Line: Equatable, Sendable {
        public var suppressed: Int
        public var seconds: Int
    }

    /// One event at `now` (monotonic ns): a `Line` when it is shown, nil when it is only counted.
    public mutating func admit(_ now: UInt64) -> Line? {
        if let last = lastShown, Double(now &- last) < interval * 1e9 {
            suppressed += 1
            return nil
        }
        defer { lastShown = now; suppressed = 0 }
        return Line(suppressed: suppressed, seconds: Int(interval))
    }
}
