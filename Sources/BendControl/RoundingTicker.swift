// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem

/// Ticks ports whose rounding moves touches between events (`hold`), on its own
/// thread ("bendsynth rounding") every `interval` nanoseconds (2 ms: the engine's 3 ms
/// glide joins the ticks into a smooth line).
/// - Thread: setup (start, stop).
public final class RoundingTicker: Sendable {
    /// Nanoseconds between ticks.
    public static let interval: UInt64 = 2_000_000
    private let loop: EventLoop

    /// - Parameter ports: the ports to tick (those without `needsTicks` are left out).
    public init(ports: [ControlPort], interval: UInt64 = RoundingTicker.interval) throws(SystemError) {
        loop = try EventLoop(name: "bendsynth rounding")
        let ticking = ports.filter(\.needsTicks)
        loop.schedule(after: interval, repeating: interval) {
            for port in ticking { port.tick() }
        }
    }

    public func start() throws(SystemError) { try loop.start() }

    /// Stops ticking and waits for the thread.
    public func stop() { loop.stop() }
}
