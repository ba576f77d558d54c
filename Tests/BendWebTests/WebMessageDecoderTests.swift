// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendTestSupport
import BendWeb
import XCTest

final class WebMessageDecoderTests: XCTestCase {
    private func decode(_ text: String) throws -> [WebMessage] { try WebMessageDecoder.decode(Array(text.utf8)) }

    private func refusal(_ text: String) -> String? {
        do { _ = try decode(text); return nil } catch { return "\(error)" }
    }

    func testEveryTypeDecodes() throws {
        XCTAssertEqual(try decode("h 0123456789abcdef"), [.hello(token: "0123456789abcdef")])
        XCTAssertEqual(try decode("d 3 0.25 0.75 1234.5"), [.touch(id: 3, phase: .down, x: 0.25, y: 0.75, clientTime: 1234.5)])
        XCTAssertEqual(try decode("m 2147483647 1 0 0"), [.touch(id: 2147483647, phase: .move, x: 1, y: 0, clientTime: 0)])
        XCTAssertEqual(try decode("u 0 0.5 0.5 1e3"), [.touch(id: 0, phase: .up, x: 0.5, y: 0.5, clientTime: 1000)])
        XCTAssertEqual(try decode("t -0.66667"), [.tilt(-0.66667)])
        XCTAssertEqual(try decode("p 17.25"), [.ping(clientTime: 17.25)])
        XCTAssertEqual(try decode("s 1\ns 0"), [.sustain(true), .sustain(false)])
        XCTAssertEqual(try decode("m 1 0.1 0.2 5\nm 2 0.3 0.4 5\nt 1"), [
            .touch(id: 1, phase: .move, x: 0.1, y: 0.2, clientTime: 5),
            .touch(id: 2, phase: .move, x: 0.3, y: 0.4, clientTime: 5),
            .tilt(1),
        ])
    }

    func testBadMessagesAreRefusedNamingLineAndField() {
        XCTAssertEqual(refusal(""), "empty message")
        XCTAssertEqual(refusal("d 1 nan 0.5 1"), "line 1: x: expected a decimal number in 0.0…1.0, got 'nan'")
        XCTAssertEqual(refusal("d 1 0.5 inf 1"), "line 1: y: expected a decimal number in 0.0…1.0, got 'inf'")
        XCTAssertEqual(refusal("d 1 0.5 1.0001 1"), "line 1: y: expected a decimal number in 0.0…1.0, got '1.0001'")
        XCTAssertEqual(refusal("d 1 -0.1 0.5 1"), "line 1: x: expected a decimal number in 0.0…1.0, got '-0.1'")
        XCTAssertEqual(refusal("d 1 0x1 0.5 1"), "line 1: x: expected a decimal number in 0.0…1.0, got '0x1'")
        XCTAssertEqual(refusal("d 1 +0.5 0.5 1"), "line 1: x: expected a decimal number in 0.0…1.0, got '+0.5'")
        XCTAssertEqual(refusal("d 1 1e999 0.5 1"), "line 1: x: expected a decimal number in 0.0…1.0, got '1e999'")
        XCTAssertEqual(refusal("d -1 0.5 0.5 1"), "line 1: id: expected an integer 0…2147483647, got '-1'")
        XCTAssertEqual(refusal("d 2147483648 0.5 0.5 1"), "line 1: id: expected an integer 0…2147483647, got '2147483648'")
        XCTAssertEqual(refusal("d 1 0.5 0.5"), "line 1: 'd' takes 4 fields (d ID X Y T), got 3")
        XCTAssertEqual(refusal("d 1  0.5 0.5 1"), "line 1: 'd' takes 4 fields (d ID X Y T), got 5")
        XCTAssertEqual(refusal("t 1.5"), "line 1: tilt: expected a decimal number in -1.0…1.0, got '1.5'")
        XCTAssertEqual(refusal("s 2"), "line 1: sustain: expected 1 or 0, got '2'")
        XCTAssertEqual(refusal("s 1 0"), "line 1: 's' takes 1 field (s 1|0), got 2")
        XCTAssertEqual(refusal("q 1"), "line 1: unknown type 'q' (expected h, d, m, u, f, t, p, s or x)")
        XCTAssertEqual(refusal("x 1"), "line 1: 'x' takes 0 fields (x), got 1")
        XCTAssertEqual(refusal("p 1\n"), "line 2: empty line")
        XCTAssertEqual(refusal("p 1\np\u{7f}"), "line 2, byte 2: 0x7f is not printable ASCII")
        XCTAssertEqual(refusal("h bad/token"), "line 1: token: expected 1…64 of A-Z a-z 0-9 - _")
        XCTAssertEqual(refusal("p " + String(repeating: "1", count: 1023)), "message of 1025 bytes; at most 1024")
    }

    /// ≥ 100 000 random messages (random bytes, and valid messages with bytes changed,
    /// cut or repeated): none crashes; every message decoded keeps to the protocol's
    /// ranges; the sessions it is fed to never hold more touches than the limit.
    func testFuzzOfTheDecoderAndTheSessions() throws {
        var random = SplitMix(seed: 0x5eed_11)
        let valid = ["h 0123456789abcdef0123456789abcdef", "d 1 0.25 0.5 10", "m 1 0.3 0.6 11", "u 1 0.3 0.6 12",
                     "t -0.5", "p 100", "s 1", "s 0", "d 4000000 1 1 1e3", "m 2 0 0 0\nm 3 1 1 1"]
        let alphabet = Array("0123456789.-+eEdmuthpnaifs x\n\u{0}".utf8)
        let token = try WebToken("0123456789abcdef0123456789abcdef")
        var limits = WebLimits()
        limits.eventsPerSecond = 1e12
        limits.burst = 1e12
        let emitted = EventCounter()
        let sessions = WebSessions(token: token, limits: limits, emit: { emitted.add($0) })
        let (connection, _) = sessions.open(now: 0)
        _ = sessions.receive(connection, Array("h 0123456789abcdef0123456789abcdef".utf8), now: 0)
        var decoded = 0, refused = 0, outOfRange = 0, overLimit = 0
        for round in 0..<100_000 {
            var bytes: [UInt8]
            switch random.next() % 3 {
            case 0:
                bytes = (0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            case 1:
                bytes = Array(valid[Int(random.next() % UInt64(valid.count))].utf8)
                for _ in 0..<(1 + random.next() % 3) where !bytes.isEmpty {
                    bytes[Int(random.next() % UInt64(bytes.count))] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                }
            default:
                let line = valid[Int(random.next() % UInt64(valid.count))]
                bytes = Array(repeatElement(line, count: 1 + Int(random.next() % 40)).joined(separator: "\n").utf8)
                bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
            }
            do {
                for message in try WebMessageDecoder.decode(bytes) {
                    let inRange: Bool
                    switch message {
                    case let .touch(id, _, x, y, t):
                        inRange = id <= WebMessageDecoder.maxTouchID && (0...1).contains(x) && (0...1).contains(y) && t.isFinite
                    case let .tilt(v): inRange = (-1...1).contains(v)
                    case let .ping(t): inRange = t.isFinite
                    case let .hello(token): inRange = (1...64).contains(token.count)
                    case .sustain, .panic: inRange = true
                    case let .force(id, v): inRange = id <= WebMessageDecoder.maxTouchID && (0...1).contains(v)
                    }
                    if !inRange { outOfRange += 1 }
                }
                decoded += 1
            } catch {
                refused += 1
            }
            _ = sessions.receive(connection, bytes, now: UInt64(round))
            if sessions.touches > limits.maxTouches { overLimit += 1 }
        }
        XCTAssertEqual(outOfRange, 0, "decoded values outside the protocol's ranges")
        XCTAssertEqual(overLimit, 0, "rounds with more touches held than the limit")
        XCTAssertEqual(decoded + refused, 100_000)
        XCTAssertGreaterThan(decoded, 10_000, "the fuzz reaches the decoder's success paths")
        XCTAssertGreaterThan(refused, 10_000)
        sessions.close(connection)
        XCTAssertEqual(sessions.touches, 0)
        XCTAssertEqual(emitted.held, 0, "every touch that went down went up")
    }
}

/// Counts the touches an emitter holds (downs minus ups, by id) and keeps every event.
final class EventCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var down: Set<UInt32> = []
    private(set) var events: [ControlEvent] = []
    func add(_ e: ControlEvent) {
        lock.lock(); defer { lock.unlock() }
        events.append(e)
        if case let .touch(id, phase, _, _) = e {
            if phase == .down { XCTAssertTrue(down.insert(id).inserted, "down of a held id \(id)") }
            if phase == .up { XCTAssertNotNil(down.remove(id), "up of an id not held \(id)") }
        }
    }
    var held: Int { lock.lock(); defer { lock.unlock() }; return down.count }
    var all: [ControlEvent] { lock.lock(); defer { lock.unlock() }; return events }
}
