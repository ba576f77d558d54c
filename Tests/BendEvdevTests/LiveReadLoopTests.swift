// SPDX-License-Identifier: GPL-3.0-or-later
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
        try loop.start()
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
        loop.stop()  // joins
        XCTAssertEqual(loop.count, 0, "the ended input is dropped")
        let s = collector.snapshot
        // Port ids come from the loop's touch namespace: from 2²⁴ up (apart from the
        // pad's), one per touch, never two held at once. Number them in order of first
        // appearance, as `canonical` does to the replay's decoder ids.
        for f in s.frames {
            for case let .touch(id, _, _, _) in f.events { XCTAssertGreaterThanOrEqual(id, 1 << 24, "apart from the pad's ids") }
        }
        let frames = canonical(s.frames)
        return (frames, s.notes)
    }

    func testLiveLoopAndReplayGiveIdenticalFrames() throws {
        for r in [try Recordings.load("RW-03"), try Recordings.load("RW-04"), try Recordings.load("RW-06"),
                  try Recordings.fixture("syn-dropped.evemu"), try Recordings.fixture("accelerometer.evemu")] {
            let (liveFrames, notes) = try live(r)
            let replay = canonical(decode(r, releaseAtEnd: true))
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

    /// Two inputs whose decoders number their touches alike (1, 2, …), read by one loop at
    /// once: every touch gets its own port id, and the ids held at any moment differ.
    func testTwoInputsWithTheSameDecoderIdsGetDistinctPortIds() throws {
        let r = try Recordings.load("RW-03")
        let collector = Collector()
        let start = r.events.first?.micros ?? 0
        let loop = try EvdevPollLoop(mapping: EvdevMapping(), grab: false, onFrame: { events, micros, path in
            collector.add(EvdevReplay.Frame(micros: micros - start, events: events))
            collector.note("frame from \(path)")
        }, onNote: { collector.note($0) })
        var writeEnds: [Int32] = []
        for name in ["a", "b"] {
            var fds: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&fds), 0)
            loop.add(EvdevReader(rawFD: fds[0], name: name, device: r.device, mapping: EvdevMapping()))
            writeEnds.append(fds[1])
        }
        try loop.start()
        let bytes = InputEvent.kernelBytes(r.events)
        // Interleaved: a's first half, b's first half, a's rest, b's rest.
        let half = bytes.count / 2
        for (fd, range) in [(writeEnds[0], 0..<half), (writeEnds[1], 0..<half), (writeEnds[0], half..<bytes.count), (writeEnds[1], half..<bytes.count)] {
            var offset = range.lowerBound
            while offset < range.upperBound {
                let w = bytes[offset..<range.upperBound].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                XCTAssertGreaterThan(w, 0)
                offset += max(w, 0)
            }
        }
        writeEnds.forEach { close($0) }
        let deadline = Date().addingTimeInterval(10)
        while collector.snapshot.notes.filter({ $0.contains("end of stream") }).count < 2 && Date() < deadline { usleep(1_000) }
        loop.stop()
        var held = Set<UInt32>(), downs = 0, everDown = Set<UInt32>()
        for f in collector.snapshot.frames {
            for case let .touch(id, phase, _, _) in f.events {
                switch phase {
                case .down:
                    XCTAssertFalse(held.contains(id), "id \(id) given to a second touch while held")
                    XCTAssertTrue(everDown.insert(id).inserted, "id \(id) reused")
                    held.insert(id)
                    downs += 1
                case .move: XCTAssertTrue(held.contains(id))
                case .up: XCTAssertNotNil(held.remove(id))
                }
            }
        }
        let replay = canonical(decode(r, releaseAtEnd: true))
        XCTAssertEqual(downs, 2 * TouchSummary(replay).downs, "every touch of both inputs")
        XCTAssertEqual(held, [])
        // Each input's own frames are the replay's: no touch of one reached the other.
        let (frames, notes) = collector.snapshot
        let sources = notes.filter { $0.hasPrefix("frame from ") }
        XCTAssertEqual(sources.count, frames.count)
        for name in ["a", "b"] {
            let mine = zip(frames, sources).filter { $0.1 == "frame from \(name)" }.map(\.0)
            XCTAssertEqual(canonical(mine), replay, name)
        }
    }

    /// Touch ids renumbered 1, 2, … in order of first appearance: the same touches in the
    /// same order compare equal whatever numbering produced them, and two touches stay two.
    private func canonical(_ frames: [EvdevReplay.Frame]) -> [EvdevReplay.Frame] {
        var map: [UInt32: UInt32] = [:]
        return frames.map { f in
            EvdevReplay.Frame(micros: f.micros, events: f.events.map { e -> ControlEvent in
                guard case let .touch(id, phase, x, y) = e else { return e }
                if map[id] == nil { map[id] = UInt32(map.count + 1) }
                return .touch(id: map[id]!, phase: phase, x: x, y: y)
            })
        }
    }
}
