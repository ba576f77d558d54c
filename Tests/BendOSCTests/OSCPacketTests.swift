// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendOSC
import XCTest

/// The packet decoder: liblo for messages, bundles walked with every size checked.
final class OSCPacketTests: XCTestCase {
    /// RW-45: `/info` without a type-tag string decodes like `/info ,` (no arguments).
    func testMessageWithoutTypeTagDecodesAsNoArguments() throws {
        let bare = try RealWorldOSC.datagram("RW-45_osc_info_without_typetag.osc")
        let control = try RealWorldOSC.datagram("RW-45_osc_info_with_empty_typetag.control.osc")
        XCTAssertEqual(bare.count, 8)
        XCTAssertEqual(control.count, 12)
        let expected = OSCPacket.message(OSCMessage(address: "/info", types: "", arguments: []))
        XCTAssertEqual(try OSCPacket.decode(bare), expected)
        XCTAssertEqual(try OSCPacket.decode(control), expected)
    }

    func testMessageArgumentsRoundTripThroughLiblo() throws {
        let bytes = OSCEncoder.encode("/bendsynth/touch", [.int32(3), .float(0.25), .double(-1.5), .string("hi"), .bool(true), .int64(1 << 40)])!
        XCTAssertEqual(bytes.count % 4, 0)
        XCTAssertEqual(try OSCPacket.decode(bytes), .message(OSCMessage(
            address: "/bendsynth/touch", types: "ifdsTh",
            arguments: [.int32(3), .float(0.25), .double(-1.5), .string("hi"), .bool(true), .int64(1 << 40)])))
    }

    func testBundlesNestAndKeepTheirOrder() throws {
        let inner = OSCEncoder.bundle([osc("/b", .int32(2))], timetag: 7)
        let outer = OSCEncoder.bundle([osc("/a", .int32(1)), inner, osc("/c")])
        let packet = try OSCPacket.decode(outer)
        XCTAssertEqual(packet.messages.map(\.address), ["/a", "/b", "/c"])
        guard case .bundle(let tt, let elements) = packet else { return XCTFail("not a bundle") }
        XCTAssertEqual(tt, 1)
        XCTAssertEqual(elements.count, 3)
        XCTAssertEqual(elements[1], .bundle(timetag: 7, elements: [.message(OSCMessage(address: "/b", types: "i", arguments: [.int32(2)]))]))
    }

    /// RW-48 b1: a real TUIO 1.1 bundle.
    func testTUIOBundleFromTheWild() throws {
        let packet = try OSCPacket.decode(try RealWorldOSC.datagram("RW-48_tuio11_b1_add_cursor0_fseq1.osc"))
        let m = packet.messages
        XCTAssertEqual(m.map(\.address), Array(repeating: "/tuio/2Dcur", count: 4))
        XCTAssertEqual(m.map(\.types), ["ss", "si", "sifffff", "si"])
        XCTAssertEqual(m[2].arguments[2], .float(0.40584895))
    }

    /// Every prefix of a valid bundle is refused with a reason, never read past its
    /// end, except the prefixes that end exactly between elements (a shorter bundle).
    func testTruncatedPacketsAreRefused() throws {
        let whole = try RealWorldOSC.datagram("RW-48_tuio11_b5_move_cursor1_fseq5.osc")
        var decoded: [Int] = []
        for n in 0..<whole.count {
            do {
                _ = try OSCPacket.decode(Array(whole.prefix(n)))
                decoded.append(n)
            } catch {
                XCTAssertFalse(error.reason.isEmpty)
            }
        }
        XCTAssertEqual(decoded, [16, 68, 100, 156], "the header, then after each of the first three elements")
        XCTAssertEqual(try OSCPacket.decode(whole).messages.count, 4)
    }

    func testBadBundleSizesAreNamed() {
        var b = OSCEncoder.bundle([osc("/a", .int32(1))])
        b[16..<20] = [0, 0, 0, 200]
        XCTAssertThrowsError(try OSCPacket.decode(b)) { e in
            XCTAssertEqual("\(e)", "bundle element 1 is 200 bytes, 12 remain")
        }
        b[16..<20] = [0xff, 0xff, 0xff, 0xfc]
        XCTAssertThrowsError(try OSCPacket.decode(b))
        var deep = osc("/x")
        for _ in 0...OSCPacket.maxDepth { deep = OSCEncoder.bundle([deep]) }
        XCTAssertThrowsError(try OSCPacket.decode(deep)) { e in XCTAssertTrue("\(e)".contains("nested deeper")) }
    }
}

/// Found by `make fuzz` (AddressSanitizer, on RW-48's first bundle): an int32 or float
/// argument was read as the whole 8-byte `lo_arg` union, 4 bytes past the end of liblo's
/// copy of a message that ends with it. Here each argument ends right before a page that
/// cannot be read: reading one byte too many crashes the test.
final class OSCArgumentBoundsTests: XCTestCase {
    func testArgumentsAreReadWithinTheirOwnBytes() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let base = try XCTUnwrap(mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        XCTAssertNotEqual(base, MAP_FAILED)
        defer { munmap(base, 2 * page) }
        XCTAssertEqual(mprotect(base + page, page, PROT_NONE), 0)
        func last<T>(_ value: T) -> UnsafeRawPointer {
            let at = base + page - MemoryLayout<T>.size
            at.storeBytes(of: value, as: T.self)
            return UnsafeRawPointer(at)
        }
        XCTAssertEqual(OSCPacket.value(tag: UInt8(ascii: "i"), last(Int32(-7))), .int32(-7))
        XCTAssertEqual(OSCPacket.value(tag: UInt8(ascii: "f"), last(Float(0.25))), .float(0.25))
        XCTAssertEqual(OSCPacket.value(tag: UInt8(ascii: "h"), last(Int64(1) << 40)), .int64(1 << 40))
        XCTAssertEqual(OSCPacket.value(tag: UInt8(ascii: "d"), last(0.5)), .double(0.5))
        XCTAssertEqual(OSCPacket.value(tag: UInt8(ascii: "b"), last(Int32(12))), .blob(12))
    }

    /// RW-48's first bundle (its `fseq` int32 ends the last message) decodes whole.
    func testBundleEndingWithAnIntegerDecodes() throws {
        let bytes = try RealWorldOSC.datagram("RW-48_tuio11_b1_add_cursor0_fseq1.osc")
        guard case let .bundle(_, elements) = try OSCPacket.decode(bytes) else { return XCTFail("not a bundle") }
        XCTAssertEqual(elements.last, .message(OSCMessage(address: "/tuio/2Dcur", types: "si", arguments: [.string("fseq"), .int32(1)])))
    }
}
