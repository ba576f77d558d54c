// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import BendSystem
import Foundation
import Synchronization

/// `bench --peers 1,8`: loopback touch-event latency from a controller's `send` to the
/// instrument's receive handler (where `play --listen` pushes the event on the engine's
/// queue; the push itself adds well under a microsecond). Each peer sends reliable
/// TOUCH moves at 500 events/s. Figures only; nothing is asserted.
public enum PeerBench {
    struct Result: Codable {
        var peers: Int
        var events: Int
        var medianMicroseconds: Double
        var p99Microseconds: Double
    }

    /// - Throws: `BenchError.setup` when the loopback session cannot be set up.
    static func measure(peers: Int, seconds: Double) throws -> Result {
        let latencies = Mutex<[UInt64]>([])
        func session(_ name: String, _ role: PeerRole) throws -> PeerSession {
            do { return try PeerSession(configuration: .init(displayName: name, role: role)) } catch {
                throw BenchError.setup("bench: peer session: \(error)")
            }
        }
        let server = try session("bench", .server)
        server.onReceive = { m, _ in
            if case .touch(_, _, _, _, let sent) = m {
                let now = MonotonicClock.nanos()
                latencies.withLock { $0.append(now &- sent) }
            }
        }
        defer { server.stop() }
        let clients = try (0..<peers).map { try session("c\($0)", .client) }
        defer { clients.forEach { $0.stop() } }
        do {
            let address = try server.listen(on: "127.0.0.1:0")
            for c in clients { _ = try c.connect(to: address) }
        } catch { throw BenchError.setup("bench: peer session: \(error)") }
        let rate = 500.0, count = Int(rate * seconds)
        let senders = try clients.enumerated().map { i, c in
            try SystemThread(name: "bench peer \(i)") {
                let start = MonotonicClock.nanos()
                _ = c.send(.touch(id: 1, phase: .down, x: 0.5, y: 0.5, timestamp: MonotonicClock.nanos()))
                for n in 1..<count {
                    let due = start + UInt64(Double(n) / rate * 1e9)
                    let now = MonotonicClock.nanos()
                    if due > now { usleep(UInt32((due - now) / 1000)) }
                    _ = c.send(.touch(id: 1, phase: .move, x: 0.5, y: 0.5, timestamp: MonotonicClock.nanos()))
                }
            }
        }
        senders.forEach { $0.join() }
        let deadline = MonotonicClock.nanos() + 2_000_000_000
        while latencies.withLock({ $0.count }) < peers * count && MonotonicClock.nanos() < deadline { usleep(1_000) }
        let sorted = latencies.withLock { $0 }.sorted()
        guard !sorted.isEmpty else { throw BenchError.setup("bench: no events arrived") }
        func pct(_ p: Double) -> Double { Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1e3 }
        return Result(peers: peers, events: sorted.count, medianMicroseconds: pct(0.5), p99Microseconds: pct(0.99))
    }

    /// Measures each peer count in turn and prints the figures (JSON with `json`).
    public static func run(_ counts: [Int], seconds: Double, json: Bool) throws {
        var results: [Result] = []
        for n in counts {
            let r = try measure(peers: n, seconds: seconds)
            results.append(r)
            if !json {
                print(String(format: "%2d peers × 500 events/s: %6d events, send→engine queue median %7.1f µs, 99th percentile %7.1f µs",
                             r.peers, r.events, r.medianMicroseconds, r.p99Microseconds))
            }
        }
        if json, let data = try? JSONEncoder().encode(results) { print(String(decoding: data, as: UTF8.self)) }
    }
}
