// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Synchronization

/// Ticks ports whose rounding moves touches between events (`hold`), on its own
/// thread ("bendsynth rounding") every `interval` nanoseconds (2 ms: the engine's 3 ms
/// glide joins the ticks into a smooth line).
/// - Thread: setup (start, stop).
public final class RoundingTicker: Sendable {
    /// Nanoseconds between ticks.
    public static let interval: UInt64 = 2_000_000
    private let loop: EventLoop
    /// The ports ticked: those of the last `ports` given that need ticks.
    private let ticking: TickedPorts

    /// - Parameter ports: the ports to tick (those without `needsTicks` are left out).
    public init(ports: [ControlPort], interval: UInt64 = RoundingTicker.interval) throws(SystemError) {
        loop = try EventLoop(name: "bendsynth rounding")
        let ticking = TickedPorts(ports.filter(\.needsTicks))
        self.ticking = ticking
        loop.schedule(after: interval, repeating: interval) {
            for port in ticking.list.withLock({ $0 }) { port.tick() }
        }
    }

    /// Ticks `ports` from the next tick on (a source restarted on a new port).
    /// - Thread: any.
    public func tick(_ ports: [ControlPort]) {
        let needing = ports.filter(\.needsTicks)
        ticking.list.withLock { $0 = needing }
    }

    public func start() throws(SystemError) { try loop.start() }

    /// Stops ticking and waits for the thread.
    public func stop() { loop.stop() }
}

/// The ticker's ports, shared by its timer and `tick(_:)`.
private final class TickedPorts: Sendable {
    let list: Mutex<[ControlPort]>
    init(_ ports: [ControlPort]) { list = Mutex(ports) }
}
