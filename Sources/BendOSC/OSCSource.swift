// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import Foundation

/// OSC and TUIO senders (`play --osc`) as an input source: one `OSCReceiver` (its own
/// event loop: the port's one producer). Its touches end when it stops.
public final class OSCSource: InputSource, @unchecked Sendable {
    public let name: String
    public let endsPlay = false
    public let address: OSCListenAddress
    public let tcp: Bool
    /// Seconds of silence that end a TUIO sender's touches; 0: never.
    public let timeout: Double
    /// Seconds of silence that end a change-only sender's touches; 0: never.
    public let restTimeout: Double
    /// Lines for the player (the listening address, senders refused, malformed packets).
    private let log: @Sendable (String) -> Void
    private var receiver: OSCReceiver?

    public init(address: OSCListenAddress, tcp: Bool, timeout: Double, restTimeout: Double = OSCInterpreter.defaultRestTimeout,
                log: @escaping @Sendable (String) -> Void) {
        self.address = address
        self.tcp = tcp
        self.timeout = timeout
        self.restTimeout = restTimeout
        self.log = log
        name = "OSC \(tcp ? "tcp" : "udp") \(address.text)"
    }

    /// - Throws: `InputSourceError` (runtime: exit 1) naming the address and the failing call.
    public func start(port: ControlPort, context: InputContext, finished: @escaping @Sendable () -> Void) throws {
        let meters = context.meters
        let receiver: OSCReceiver
        do {
            receiver = try OSCReceiver(address: address, tcp: tcp, timeout: timeout, restTimeout: restTimeout, emit: { port.send($0) },
                                       log: log, voices: { meters.voices }, panic: { context.panic?($0) })
        } catch {
            throw InputSourceError(.runtime, "cannot receive OSC on '\(address.text)': \(error)")
        }
        receiver.start()
        self.receiver = receiver
        log("OSC listening on \(tcp ? "tcp" : "udp") \(receiver.boundDescription)"
            + (timeout > 0 ? String(format: ", TUIO touches end after %g s of silence", timeout) : "")
            + (restTimeout > 0 ? String(format: ", other touches on their release or after %g s of silence", restTimeout) : ""))
    }

    public func stop() { receiver?.stop() }
}
