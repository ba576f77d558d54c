// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendEngine
import BendEvdev
import BendSystem
import Foundation
import Glibc
import Synchronization

/// `bendsynth-bench --evdev RECORDING`: how long an event takes from being read to
/// taking effect on the render thread. The recording is written in real time into a
/// pipe as `struct input_event`s, read by the live read loop (`EvdevPollLoop`),
/// stamped by the stream clock and sent to the engine, which renders real-time-paced
/// periods into nothing (`PacedOutput`). For each frame of events the time from its
/// read to the moment the render thread has rendered the period holding its stamped
/// frame (the mixer's position passing it, watched every 20 µs) is one sample.
/// Printed, never asserted: figures on a shared machine move.
public enum EvdevLatencyBench {
    private final class Pending: @unchecked Sendable {
        let lock = NSLock()
        var waiting: [(frame: UInt64, readNanos: UInt64)] = []
        func add(_ frame: UInt64, _ nanos: UInt64) { lock.lock(); waiting.append((frame, nanos)); lock.unlock() }
        /// Removes and returns what the stream has passed.
        func passed(_ position: UInt64) -> [UInt64] {
            lock.lock(); defer { lock.unlock() }
            let done = waiting.filter { $0.frame < position }.map(\.readNanos)
            waiting.removeAll { $0.frame < position }
            return done
        }
        var isEmpty: Bool { lock.lock(); defer { lock.unlock() }; return waiting.isEmpty }
    }

    /// Replays `recording` (named `name` in messages) in real time and prints the read →
    /// render latency.
    /// - Parameters:
    ///   - tone: the loop the voices play, at `rate`; the caller frees it.
    ///   - rate: frames per second.
    ///   - voices: polyphony.
    ///   - period: frames per paced period.
    /// - Throws: `BenchError.input` when no event changes anything; `.setup` when the
    ///   pipe cannot be made.
    /// - Thread: setup.
    public static func run(_ recording: EvemuRecording, name: String, mapping: EvdevMapping, tone: ToneTable, rate: Int,
                           voices: Int, pitchMap: PitchMap, period: Int) throws {
        let instrument = Instrument(configuration: MixerConfiguration(rate: Double(rate), maxPeriodFrames: period, voices: voices),
                                    tone: tone, live: true)
        defer { instrument.deallocate() }
        let mixer = instrument.mixer
        let clock = instrument.clock!
        let port = instrument.addPort(pitchMap: pitchMap)
        let output = PacedOutput(rate: rate, periodFrames: period)
        try output.start(instrument.driver())
        defer { output.stop() }

        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw BenchError.setup("\(SystemError(call: "pipe"))") }
        let pending = Pending()
        let loop = try EvdevPollLoop(mapping: mapping, grab: false, onFrame: { events, _, _ in
            let now = MonotonicClock.nanos()
            let frame = clock.stamp(nanos: now)
            for e in events { port.send(e, atFrame: frame) }
            pending.add(frame, now)
        }, onNote: { _ in })
        loop.add(EvdevReader(rawFD: fds[0], name: name, device: recording.device, mapping: mapping))
        try loop.start()  // its own event loop thread ("bendsynth evdev")

        // The writer: each frame of events at its recorded time.
        let writeEnd = fds[1]
        let events = recording.events
        let writerDone = Atomic<Bool>(false)
        let writer = try SystemThread(name: "bench writer") {
            let start = MonotonicClock.nanos(), first = events.first?.micros ?? 0
            var batch: [InputEvent] = []
            for e in events {
                batch.append(e)
                guard e.type == EvdevCode.evSyn && e.code == EvdevCode.synReport else { continue }
                let due = start + UInt64(max(0, e.micros - first)) * 1000
                while MonotonicClock.nanos() < due { usleep(UInt32(min(10_000, max(1, (due - MonotonicClock.nanos()) / 1000)))) }
                InputEvent.kernelBytes(batch).withUnsafeBytes { _ = write(writeEnd, $0.baseAddress, $0.count) }
                batch.removeAll(keepingCapacity: true)
            }
            close(writeEnd)
            writerDone.store(true, ordering: .releasing)
        }

        var samples: [Double] = []
        let deadline = MonotonicClock.nanos() + UInt64(max(0, (events.last?.micros ?? 0) - (events.first?.micros ?? 0))) * 1000 + 5_000_000_000
        while !(writerDone.load(ordering: .acquiring) && pending.isEmpty) && MonotonicClock.nanos() < deadline {
            let position = mixer.position
            let now = MonotonicClock.nanos()
            samples += pending.passed(position).map { Double(now - min($0, now)) / 1e6 }
            usleep(20)
        }
        loop.stop()
        writer.join()
        port.releaseAll()

        samples.sort()
        guard !samples.isEmpty else { throw BenchError.input("\(name): no events that change anything; nothing to measure") }
        func percentile(_ p: Double) -> Double { samples[min(samples.count - 1, Int((Double(samples.count - 1) * p).rounded()))] }
        let periodMS = Double(period) * 1000 / Double(rate)
        print(String(format: "evdev read → render: %d frames of events, period %d frames (%.2f ms): median %.2f ms, p99 %.2f ms, max %.2f ms; %d late periods",
                     samples.count, period, periodMS, percentile(0.5), percentile(0.99), samples.last!, output.xruns))
    }
}
