// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendEngine
import BendOSC
import BendSystem
import Foundation
import Glibc
import Synchronization

/// `bendsynth-bench --osc`: the time from an OSC datagram's arrival to the frame where
/// it takes effect. A paced render thread (`PacedOutput`: real-time pacing with
/// absolute sleeps, no device) renders the mixer; a loopback UDP sender sends
/// `/bendsynth/touch` at random phases of the period; the receive thread stamps each
/// event with `StreamClock` as `play` does. The latency is computed offline from the
/// stamps: the stamped frame's time on the paced timeline minus the sender's clock
/// reading just before `sendto` (loopback delivery included).
public enum OSCBench {
    public struct Result {
        /// Frames per paced period.
        public var periodFrames: Int
        /// Datagrams measured.
        public var count: Int
        /// Latencies, milliseconds.
        public var median: Double
        public var p99: Double
        public var max: Double
    }

    /// Collects the stream frames the port stamps. - Thread: the receive thread.
    final class FrameLog: ControlEventObserver, @unchecked Sendable {
        let frames = Mutex<[UInt64]>([])
        func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) {
            frames.withLock { $0.append(streamFrame) }
        }
    }

    /// Sends `count` datagrams at random phases and measures each one's latency.
    /// - Parameters:
    ///   - period: frames per paced period.
    ///   - rate: frames per second.
    ///   - log: the receiver's notes (e.g. a malformed packet), one line each.
    /// - Throws: `BenchError.setup` when not every datagram took effect; the receiver's
    ///   and the output's setup errors.
    /// - Thread: setup.
    public static func measure(period: Int, rate: Int, count: Int, log note: @escaping @Sendable (String) -> Void) throws -> Result {
        let tone = ToneTable(samples: [0, 0.5, 0, -0.5], rate: Double(rate))
        let instrument = Instrument(configuration: MixerConfiguration(rate: Double(rate), maxPeriodFrames: period, voices: 4),
                                    tone: tone, live: true)
        let clock = instrument.clock!
        let log = FrameLog()
        let port = instrument.addPort(pitchMap: .linear, observers: [log])
        let receiver = try OSCReceiver(address: try OSCListenAddress("127.0.0.1:0", allow: []), tcp: false, timeout: 0,
                                       emit: { port.send($0) }, log: note, voices: { 0 })
        let output = PacedOutput(rate: rate, periodFrames: period)
        receiver.start()
        try output.start(instrument.driver())
        defer {
            receiver.stop()
            output.stop()
            instrument.deallocate(); tone.deallocate()
        }
        while clock.snapshot() == nil { usleep(1_000) }

        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var to = sockaddr_in()
        to.sin_family = sa_family_t(AF_INET)
        to.sin_port = UInt16(receiver.boundDescription.split(separator: ":").last!)!.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &to.sin_addr)
        var sent: [UInt64] = []
        var rng = SystemRandomNumberGenerator()
        for i in 0..<count {
            let bytes = OSCEncoder.encode("/bendsynth/touch", [.int32(1), .float(Float(i % 100) / 100), .float(0.5)])!
            let t = MonotonicClock.nanos()
            _ = bytes.withUnsafeBytes { b in
                withUnsafePointer(to: &to) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, b.baseAddress, b.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                } }
            }
            sent.append(t)
            usleep(UInt32.random(in: 500...3_000, using: &rng))  // random phases within the period
        }
        let deadline = MonotonicClock.nanos() + 2_000_000_000
        while log.frames.withLock({ $0.count }) < count && MonotonicClock.nanos() < deadline { usleep(1_000) }
        let frames = log.frames.withLock { $0 }
        guard frames.count == count, let (f0, n0) = clock.snapshot() else {
            throw BenchError.setup("--osc: \(frames.count) of \(count) datagrams took effect")
        }
        // The paced timeline: frame F plays at n0 + (F − f0)/rate.
        let latencies = zip(frames, sent).map { f, t -> Double in
            let effect = Double(n0) + (Double(f) - Double(f0)) * 1e9 / Double(rate)
            return (effect - Double(t)) * 1e-6
        }.sorted()
        return Result(periodFrames: period, count: count, median: latencies[count / 2],
                      p99: latencies[min(count - 1, count * 99 / 100)], max: latencies[count - 1])
    }
}
