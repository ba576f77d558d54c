// SPDX-License-Identifier: GPL-3.0-or-later
import BendOSC
import BendTestSupport
import XCTest

/// A seeded generator of hostile and valid datagrams: TUIO bundles (reordered,
/// duplicated, from several senders), our messages with wrong types, truncated and
/// bit-flipped packets, garbage. No crash, no inconsistent event, nothing held at the end.
final class OSCFuzzTests: XCTestCase {
    func testHundredThousandDatagrams() {
        let log = EventLog()
        let osc = log.interpreter(timeout: 2, restTimeout: 2)
        var gen = DatagramGenerator(seed: 0x0BE7D5)
        var now: UInt64 = 0
        var decodeFailures = 0
        for _ in 0..<100_000 {
            let (bytes, sender) = gen.next()
            now += UInt64(gen.rng.next() % 2_000_000)   // 0…2 ms apart
            if (try? OSCPacket.decode(bytes)) == nil { decodeFailures += 1 }
            osc.feed(bytes, from: sender, now: now)
            if gen.rng.next() % 64 == 0 { osc.expire(now: now) }
        }
        // Every sender falls silent: its touches end.
        osc.expire(now: now + 2_000_000_000)
        XCTAssertEqual(osc.activeTouches, 0)
        XCTAssertEqual(log.down.count, 0, "every started touch ended")
        XCTAssertEqual(log.faults.prefix(5), [])
        XCTAssertEqual(osc.packets + osc.malformed, 100_000)
        XCTAssertEqual(osc.malformed, decodeFailures)
        XCTAssertGreaterThan(log.starts, 1_000, "the valid part really played")
        XCTAssertGreaterThan(osc.malformed, 10_000, "the hostile part really was hostile")
        XCTAssertGreaterThan(osc.lateFrames, 100)
        XCTAssertGreaterThan(osc.wrongTypes, 1_000)
        XCTAssertLessThanOrEqual(log.lines.count, 258, "problems are logged once each")
        print("fuzz: \(log.starts) touches started, \(osc.malformed) malformed, \(osc.lateFrames) late frames, \(osc.wrongTypes) wrong types, \(log.lines.count) log lines")
    }
}

/// The generator's draws as the fuzz uses them.
extension SplitMix {
    /// 0 ..< n.
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    /// 0…1 in steps of 1/10 000.
    mutating func unit() -> Float { Float(next() % 10_001) / 10_000 }
}

struct DatagramGenerator {
    var rng: SplitMix
    var fseq: [Int32] = [0, 0, 0, 0]
    var recent: [[UInt8]] = []

    init(seed: UInt64) { rng = SplitMix(seed: seed) }

    mutating func next() -> ([UInt8], String) {
        let senderIndex = rng.below(4)
        let sender = "127.0.0.\(senderIndex + 1):\(9000 + senderIndex)"
        var bytes: [UInt8]
        switch rng.below(10) {
        case 0, 1, 2:   // a TUIO frame, sometimes with an old or repeated fseq
            fseq[senderIndex] += 1
            let n = rng.below(8) == 0 ? fseq[senderIndex] - Int32(rng.below(5)) : fseq[senderIndex]
            let alive = (0..<rng.below(5)).map { _ in Int32(rng.below(8)) }
            let sets = alive.filter { _ in rng.below(2) == 0 }.map { ($0, rng.unit() * 1.2 - 0.1, rng.unit()) }
            bytes = tuio(alive: alive, sets: sets, fseq: n, source: rng.below(3) == 0 ? "s\(rng.below(2))" : nil)
        case 3:         // a TUIO 2.0 frame
            fseq[senderIndex] += 1
            let id = Int32(rng.below(4))
            var elements = [OSCEncoder.encode("/tuio2/frm", [.int32(fseq[senderIndex]), .int64(0), .int32(0), .string("fz")])!]
            if rng.below(2) == 0 {
                elements.append(OSCEncoder.encode("/tuio2/ptr", [.int32(id), .int32(0), .int32(0), .float(rng.unit()), .float(rng.unit()), .float(0)])!)
                elements.append(OSCEncoder.encode("/tuio2/alv", [.int32(id)])!)
            } else {
                elements.append(OSCEncoder.encode("/tuio2/alv", [])!)
            }
            bytes = OSCEncoder.bundle(elements)
        case 4:         // our messages, right and wrong types
            bytes = ownMessage()
        case 5:         // a recent datagram again (duplicate, late)
            bytes = recent.isEmpty ? ownMessage() : recent[rng.below(recent.count)]
        case 6:         // truncated
            let whole = recent.isEmpty ? ownMessage() : recent[rng.below(recent.count)]
            bytes = Array(whole.prefix(rng.below(max(1, whole.count))))
        case 7:         // bit flips
            bytes = recent.isEmpty ? ownMessage() : recent[rng.below(recent.count)]
            for _ in 0..<(1 + rng.below(4)) where !bytes.isEmpty { bytes[rng.below(bytes.count)] ^= UInt8(1 << rng.below(8)) }
        case 8:         // garbage, sometimes shaped like a bundle or a message
            bytes = (0..<(rng.below(16) * 4)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if rng.below(2) == 0 { bytes = Array("#bundle".utf8) + [0] + bytes }
            else if rng.below(2) == 0 { bytes = Array("/bendsynth/touch".utf8) + [0, 0, 0, 0] + bytes }
        default:        // nested bundles of our messages
            bytes = OSCEncoder.bundle([ownMessage(), OSCEncoder.bundle([ownMessage(), ownMessage()])])
        }
        if recent.count < 64 { recent.append(bytes) } else { recent[rng.below(64)] = bytes }
        return (bytes, sender)
    }

    mutating func ownMessage() -> [UInt8] {
        let id = Int32(rng.below(6))
        let values: [OSCValue] = [.int32(id), .float(rng.unit()), .float(rng.unit()), .string("x"), .double(Double(rng.unit())), .float(.nan), .float(.infinity)]
        let args = (0..<rng.below(4)).map { _ in rng.below(3) == 0 ? values[rng.below(values.count)] : values[1] }
        switch rng.below(9) {
        case 0, 1, 2: return OSCEncoder.encode("/bendsynth/touch", rng.below(3) == 0 ? args : [.int32(id), .float(rng.unit()), .float(rng.unit())])!
        case 3: return OSCEncoder.encode("/bendsynth/release", rng.below(3) == 0 ? args : [.int32(id)])!
        case 4: return OSCEncoder.encode("/bendsynth/tilt", args)!
        case 5: return OSCEncoder.encode("/accxyz", args)!
        case 6: return OSCEncoder.encode("/bendsynth/xy/\(rng.below(3))", args)!
        case 7: return OSCEncoder.encode("/bendsynth/xy/\(rng.below(3))/z", [.float(Float(rng.below(2)))])!
        default: return OSCEncoder.encode("/bendsynth/voices", args)!
        }
    }
}
