// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import Foundation
import Glibc
import XCTest

/// `play --listen`: each peer's touches in their own namespace, and the per-peer limits.
final class PeerNamespaceTests: XCTestCase {
    struct Line: Decodable { var type: String; var id: UInt32?; var x: Double? }

    func testSameTouchIdFromTwoPeersAreTwoTouchesAndLimitsDropTheExcess() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let touches = dir.appendingPathComponent("touches.jsonl").path
        let instrument = try PeerEndToEndTests.Instrument(dir: dir, listen: { String($0) }, extra: ["--record-touches", touches])
        defer { _ = instrument.stop() }
        XCTAssertTrue(instrument.waitFor("listening for peers"), instrument.stderr)
        let a = try PeerSession(configuration: .init(displayName: "A", role: .client))
        let b = try PeerSession(configuration: .init(displayName: "B", role: .client))
        defer { a.stop(); b.stop() }
        _ = try a.connect(to: "127.0.0.1:\(instrument.port)")
        _ = try b.connect(to: "127.0.0.1:\(instrument.port)")
        a.send(.touch(id: 1, phase: .down, x: 0.25, y: 1, timestamp: 0))
        b.send(.touch(id: 1, phase: .down, x: 0.75, y: 1, timestamp: 0))
        XCTAssertTrue(instrument.waitFor("'B'"))
        usleep(200_000)
        a.send(.touch(id: 1, phase: .up, x: 0, y: 0, timestamp: 0))      // ends A's touch only
        // B holds 1 and tries 11 more: the limit is 10 at once.
        for id in 2...12 as ClosedRange<UInt32> { b.send(.touch(id: id, phase: .down, x: 0.5, y: 0.5, timestamp: 0)) }
        b.send(.text(String(repeating: "x", count: 250)))
        XCTAssertTrue(instrument.waitFor("more than 10 touches at once; touch dropped"), instrument.stderr)
        XCTAssertTrue(instrument.waitFor("message from B: \(String(repeating: "x", count: 200))… (cut: 250 bytes, limit 200)"), instrument.stderr)
        b.disconnectFromAllPeers()                                         // ends B's 10 touches
        XCTAssertTrue(instrument.waitFor("'B' (127.0.0.1:"), instrument.stderr)
        XCTAssertTrue(instrument.waitFor("left: normal (hung up)"), instrument.stderr)
        // B's touches end when B leaves, not only when the instrument stops.
        func upsRecorded() -> Int { ((try? String(contentsOfFile: touches, encoding: .utf8)) ?? "").components(separatedBy: "\"type\": \"up\"").count - 1 }
        XCTAssertTrue(Poll.until { upsRecorded() == 11 }, "\(upsRecorded()) ups recorded while the instrument runs")
        usleep(200_000)
        XCTAssertEqual(instrument.stop(), 0, instrument.stderr)

        let lines = try String(contentsOfFile: touches, encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        let downs = lines.filter { $0.type == "down" }, ups = lines.filter { $0.type == "up" }
        XCTAssertEqual(downs.count, 11, "A's one + B's ten")
        XCTAssertEqual(Set(downs.compactMap(\.id)).count, 11, "distinct engine touch ids")
        XCTAssertEqual(Set(ups.compactMap(\.id)), Set(downs.compactMap(\.id)), "every touch ended")
        let aTouch = try XCTUnwrap(downs.first { $0.x == 0.25 }?.id)
        let firstUp = try XCTUnwrap(ups.first?.id)
        XCTAssertEqual(firstUp, aTouch, "A's up ended A's touch, not B's touch with the same id")
    }
}
