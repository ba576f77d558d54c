// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendPeers
import BendTestSupport
import Foundation
import Glibc
import Synchronization
import XCTest

/// Load: 8 controllers at 500 touch events/s each for 10 s, reliable, into a real
/// `play --listen`: nothing lost, every touch ended, no voice sounding at the end.
final class PeerLoadTests: XCTestCase {
    func testEightControllersAt500EventsPerSecondLoseNothing() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let touches = dir.appendingPathComponent("touches.jsonl").path
        let instrument = try PeerEndToEndTests.Instrument(dir: dir, listen: { String($0) }, extra: ["--record-touches", touches])
        defer { _ = instrument.stop() }
        XCTAssertTrue(instrument.waitFor("listening for peers"), instrument.stderr)
        let controllers = 8, rate = 500.0, seconds = 10.0, perTouch = 50
        let eventsEach = Int(rate * seconds)
        var sessions: [PeerSession] = []
        defer { sessions.forEach { $0.stop() } }
        for i in 0..<controllers {
            let s = try PeerSession(configuration: .init(displayName: "load\(i)", role: .client))
            _ = try s.connect(to: "127.0.0.1:\(instrument.port)")
            sessions.append(s)
        }
        let sentTotal = Atomic<Int>(0)
        let group = DispatchGroup()
        for (i, s) in sessions.enumerated() {
            group.enter()
            Thread.detachNewThread {
                let start = Date()
                var sent = 0
                for n in 0..<eventsEach {
                    let due = start.addingTimeInterval(Double(n) / rate)
                    let wait = due.timeIntervalSinceNow
                    if wait > 0 { usleep(UInt32(wait * 1e6)) }
                    let k = n % perTouch, id = UInt32(n / perTouch)
                    let x = Float(i + 1) / Float(controllers + 2)
                    let phase: TouchPhase = k == 0 ? .down : k == perTouch - 1 ? .up : .move
                    sent += s.send(.touch(id: id, phase: phase, x: x, y: 0.5, timestamp: 0), mode: .reliable)
                }
                sentTotal.add(sent, ordering: .relaxed)
                group.leave()
            }
        }
        group.wait()
        XCTAssertEqual(sentTotal.load(ordering: .relaxed), controllers * eventsEach)
        sessions.forEach { $0.disconnectFromAllPeers() }
        XCTAssertTrue(waitForLeaves(instrument, controllers), instrument.stderr)
        usleep(300_000)
        XCTAssertEqual(instrument.stop(), 0, instrument.stderr)
        let script = try String(contentsOfFile: touches, encoding: .utf8)
        func count(_ type: String) -> Int { script.components(separatedBy: "\"type\": \"\(type)\"").count - 1 }
        let touchesEach = eventsEach / perTouch
        XCTAssertEqual(count("down"), controllers * touchesEach)
        XCTAssertEqual(count("move"), controllers * touchesEach * (perTouch - 2))
        XCTAssertEqual(count("up"), controllers * touchesEach)
        XCTAssertFalse(instrument.stderr.contains("dropped"), instrument.stderr)
        let left = Measure.channel(try WAVReader.read(instrument.wav).samples, 0)
        let last = try XCTUnwrap(left.lastIndex { $0 != 0 })
        XCTAssertGreaterThan(left.count - last, 4_800, "silence at the end: no voice left sounding")
        print("load: \(controllers) controllers × \(eventsEach) events, \(count("down") + count("move") + count("up")) recorded")
    }

    func waitForLeaves(_ instrument: PeerEndToEndTests.Instrument, _ n: Int) -> Bool {
        Poll.until { instrument.stderr.components(separatedBy: " left: ").count - 1 >= n }
    }
}
