// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import XCTest

final class FrameCodecTests: XCTestCase {
    static let samples: [PeerMessage] = [
        .challenge(version: 2, authRequired: true, nonce: Array(0..<32)),
        .hello(Hello(role: .client, nonce: Array(repeating: 1, count: 32), proof: Array(repeating: 7, count: 32), identity: Array(repeating: 9, count: 40))),
        .hello(Hello(role: .peer, nonce: Array(repeating: 2, count: 32), proof: [], identity: Array(repeating: 3, count: 17))),
        .accept(Accept(proof: [], identity: Array(repeating: 5, count: 30))),
        .decline(reason: .authenticationFailed, detail: "wrong key"),
        .touch(id: 3, phase: .down, x: 0.25, y: 1, timestamp: 123_456_789),
        .touch(id: .max, phase: .up, x: 0, y: 0, timestamp: .max),
        .tilt(value: -1, timestamp: 5),
        .text("héllo 🎹"),
        .ping(sequence: 7, sent: 99),
        .pong(sequence: 7, echoed: 99, xruns: 3, voices: 12),
        .bye(reason: .normal, detail: ""),
        .sealed(Array(repeating: 4, count: 40)),
    ]

    func testEverySampleRoundTripsThroughTheStreamDecoder() throws {
        var all: [UInt8] = []
        for m in Self.samples { all += FrameCodec.encode(m) }
        // Fed one byte at a time: frames come out whole and in order.
        var d = FrameStreamDecoder()
        var out: [PeerMessage] = []
        for b in all { out += try d.feed([b]) }
        XCTAssertEqual(out, Self.samples)
        XCTAssertEqual(d.pending, 0)
    }

    func testTouchFrameIsByteExact() {
        let f = FrameCodec.encode(.touch(id: 0x0102_0304, phase: .move, x: 0.5, y: 1, timestamp: 0x0a0b))
        XCTAssertEqual(f, [0, 22, 16, 1, 2, 3, 4, 1, 0x3f, 0, 0, 0, 0x3f, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0x0b])
        XCTAssertEqual(f.count, 2 + 1 + 4 + 1 + 4 + 4 + 8)
    }

    func testMalformedFramesNameTheirReason() {
        func body(_ m: PeerMessage) -> [UInt8] { Array(FrameCodec.encode(m).dropFirst(2)) }
        func reason(_ b: [UInt8]) -> FrameError? {
            do { _ = try FrameCodec.decode(body: b); return nil } catch { return error }
        }
        XCTAssertEqual(reason([99])?.detail, "unknown frame type 99")
        var touch = body(.touch(id: 1, phase: .down, x: 0.5, y: 0.5, timestamp: 0))
        touch[5] = 9
        XCTAssertEqual(reason(touch)?.detail, "TOUCH: phase = 9, expected 0 (down), 1 (move) or 2 (up)")
        let nanX = body(.touch(id: 1, phase: .down, x: .nan, y: 0.5, timestamp: 0))
        XCTAssertEqual(reason(nanX)?.reason, .malformedFrame)
        XCTAssertEqual(reason(body(.touch(id: 1, phase: .down, x: 1.5, y: 0, timestamp: 0)))?.detail, "TOUCH: x = 1.5, expected 0…1")
        touch[5] = 1
        XCTAssertEqual(reason(Array(touch.prefix(8)))?.detail, "TOUCH: truncated at x (needs 4 bytes, 2 left)")
        XCTAssertEqual(reason(body(.ping(sequence: 1, sent: 2)) + [0])?.detail, "PING: 1 bytes after the last field")
        XCTAssertEqual(reason([FrameType.text.rawValue, 0, 2, 0xff, 0xfe])?.detail, "TEXT: text is not valid UTF-8")
        let long = [FrameType.text.rawValue, 1, 0x2c] + Array(repeating: UInt8(ascii: "a"), count: 300)
        XCTAssertEqual(reason(long)?.reason, .oversizedFrame)
        XCTAssertEqual(reason(Array(repeating: 16, count: 513))?.reason, .oversizedFrame)
        XCTAssertEqual(reason([FrameType.sealed.rawValue] + Array(repeating: 1, count: 529))?.detail, "530 bytes, at most 529")
        XCTAssertEqual(reason([FrameType.sealed.rawValue] + Array(repeating: 1, count: 16))?.detail, "SEALED: 16 bytes, at least 17")
        XCTAssertEqual(reason([FrameType.hello.rawValue, 1, 1])?.reason, .versionMismatch)
        XCTAssertEqual(reason(body(.tilt(value: 2, timestamp: 0)))?.detail, "TILT: tilt = 2.0, expected −1…1")
    }

    func testStreamLengthPrefixLimits() {
        var d = FrameStreamDecoder()
        XCTAssertThrowsError(try d.feed([0x02, 0x12])) { XCTAssertEqual(($0 as? FrameError)?.detail, "frame length 530, at most 529") }
        var z = FrameStreamDecoder()
        XCTAssertThrowsError(try z.feed([0, 0])) { XCTAssertEqual(($0 as? FrameError)?.detail, "frame length 0") }
    }

    func testLongStringsAreCutAtACharacterBoundaryOnEncode() throws {
        let s = String(repeating: "é", count: 200)   // 400 bytes
        guard case .text(let back) = try FrameCodec.decode(body: FrameCodec.encode(.text(s)).dropFirst(2)) else { return XCTFail() }
        XCTAssertEqual(back.utf8.count, 280)
        XCTAssertEqual(back, String(repeating: "é", count: 140))
    }
}
