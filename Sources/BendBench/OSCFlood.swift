// SPDX-License-Identifier: GPL-3.0-or-later
import BendOSC
import BendSystem
import Foundation

/// The soak's OSC load: one UDP sender that touches `touches` distinct ids (ten times
/// the per-sender touch limit) round-robin at `rate` datagrams a second — `/bendsynth/touch
/// iff` — and at the end releases every id (`/bendsynth/release i`), paced, as a sender
/// that leaves properly does. For the soak's load only.
final class OSCFlood: @unchecked Sendable {
    let touches: Int
    let rate: Double
    private let socket: Socket
    private let target: SocketAddress
    private(set) var sent = 0

    init(port: UInt16, touches: Int, rate: Double) throws {
        self.touches = touches
        self.rate = rate
        target = SocketAddress(numeric: "127.0.0.1", port: port)!
        do { socket = try Socket.open(.ipv4, .datagram) } catch { throw BenchError.setup("soak: OSC sender: \(error)") }
    }

    deinit { socket.close() }

    private func send(_ address: String, _ arguments: [OSCValue]) {
        guard let bytes = OSCEncoder.encode(address, arguments) else { return }
        _ = bytes.withUnsafeBytes { try? socket.send($0, to: target) }
        sent += 1
    }

    /// Sends until `stop()` is true, in bursts every millisecond.
    func run(until stop: () -> Bool) {
        let start = MonotonicClock.nanos()
        var n = 0
        while !stop() {
            let due = Int(Double(MonotonicClock.nanos() - start) / 1e9 * rate)
            while n < due {
                let id = n % touches
                let phase = Double(n / touches % 100) / 100
                send("/bendsynth/touch", [.int32(Int32(id)), .float(Float(id % 97) / 97), .float(Float(phase))])
                n += 1
            }
            usleep(1_000)
        }
    }

    /// Releases every id, 256 a millisecond (the receiver's socket buffer holds them).
    func releaseAll() {
        for id in 0..<touches {
            send("/bendsynth/release", [.int32(Int32(id))])
            if id % 256 == 255 { usleep(1_000) }
        }
    }
}
