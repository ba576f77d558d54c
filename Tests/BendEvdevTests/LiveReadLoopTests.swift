import BendControl
import BendEvdev
import Foundation
import Glibc
import XCTest

/// The live read loop (`EvdevPollLoop` + `EvdevReader` reading `struct input_event`s
/// from a pipe) and the replay (`EvdevReplay`) decode the same events identically.
final class LiveReadLoopTests: XCTestCase {
    private final class Collector: @unchecked Sendable {
        let lock = NSLock()
        var frames: [EvdevReplay.Frame] = []
        var notes: [String] = []
        func add(_ f: EvdevReplay.Frame) { lock.lock(); frames.append(f); lock.unlock() }
        func note(_ n: String) { lock.lock(); notes.append(n); lock.unlock() }
        var snapshot: (frames: [EvdevReplay.Frame], notes: [String]) { lock.lock(); defer { lock.unlock() }; return (frames, notes) }
    }

    /// Streams `r`'s events through a pipe into the live loop; returns its frames (times
    /// from the first event, ids untagged) and notes once the stream has ended.
    private func live(_ r: EvemuRecording, chunk: Int = 37) throws -> (frames: [EvdevReplay.Frame], notes: [String]) {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let collector = Collector()
        let start = r.events.first?.micros ?? 0
        let loop = try EvdevPollLoop(mapping: EvdevMapping(), grab: false, onFrame: { events, micros, _ in
            collector.add(EvdevReplay.Frame(micros: micros - start, events: events))
        }, onNote: { collector.note($0) })
        loop.add(EvdevReader(rawFD: fds[0], name: "pipe", device: r.device, mapping: EvdevMapping()))
        let loopThread = Thread { loop.run() }
        loopThread.start()
        // The writer sends odd-sized chunks, so structs arrive split across reads.
        let bytes = InputEvent.kernelBytes(r.events)
        var offset = 0
        while offset < bytes.count {
            let n = min(chunk, bytes.count - offset)
            let w = bytes[offset..<offset + n].withUnsafeBytes { write(fds[1], $0.baseAddress, n) }
            XCTAssertGreaterThan(w, 0)
            offset += max(w, 0)
        }
        close(fds[1])
        let deadline = Date().addingTimeInterval(10)
        while !collector.snapshot.notes.contains(where: { $0.contains("end of stream") }) && Date() < deadline {
            usleep(1_000)
        }
        loop.stop()
        while loopThread.isExecuting { usleep(1_000) }
        XCTAssertEqual(loop.count, 0, "the ended input is dropped")
        let s = collector.snapshot
        // Undo the per-input tag (serial 1).
        let frames = s.frames.map { f in
            EvdevReplay.Frame(micros: f.micros, events: f.events.map { e -> ControlEvent in
                if case let .touch(id, phase, x, y) = e {
                    XCTAssertEqual(id >> 24, 1)
                    return .touch(id: id & 0xff_ffff, phase: phase, x: x, y: y)
                }
                return e
            })
        }
        return (frames, s.notes)
    }

    func testLiveLoopAndReplayGiveIdenticalFrames() throws {
        for r in [try Recordings.load("RW-03"), try Recordings.load("RW-04"), try Recordings.load("RW-06"),
                  try Recordings.fixture("syn-dropped.evemu"), try Recordings.fixture("accelerometer.evemu")] {
            let (liveFrames, notes) = try live(r)
            let replay = decode(r, releaseAtEnd: true)
            XCTAssertGreaterThan(replay.count, 1)
            XCTAssertEqual(liveFrames, replay, r.device.name)
            XCTAssertEqual(notes, ["pipe: end of stream; its touches ended"])
        }
    }

    func testInputGoneEndsItsTouchesAndTagsKeepInputsApart() throws {
        // RW-06 ends mid-touch: the stream's end is an unplug; the last touch ends.
        let (frames, _) = try live(try Recordings.load("RW-06"))
        let s = TouchSummary(frames)
        XCTAssertEqual(s.downs, 8)
        XCTAssertEqual(s.ups, 8)
        XCTAssertEqual(s.stillDown, [])
    }
}
