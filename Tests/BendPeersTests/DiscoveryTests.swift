// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendPeers
import XCTest

final class DiscoveryTests: XCTestCase {
    func testAnnouncementTextRoundTripsAndStrangersAreIgnored() {
        let a = PeerAnnouncement(tcpPort: 47810, authRequired: true, name: "bendsynth on stage pc")
        XCTAssertEqual(a.text, "bendsynth1 47810 1 bendsynth on stage pc")
        XCTAssertEqual(PeerAnnouncement.parse(Array(a.text.utf8), host: "10.0.0.1"),
                       PeerAnnouncement(tcpPort: 47810, authRequired: true, name: "bendsynth on stage pc", host: "10.0.0.1"))
        for junk in ["", "bendsynth1", "bendsynth2 1 1 x", "bendsynth1 0 1 x", "bendsynth1 70000 1 x", "bendsynth1 5 2 x"] {
            XCTAssertNil(PeerAnnouncement.parse(Array(junk.utf8), host: "h"), junk)
        }
        XCTAssertNil(PeerAnnouncement.parse([0xff, 0xfe], host: "h"))
    }

    func testAnnouncerIsHeardOnAPrivatePort() throws {
        let port: UInt16 = 47_900 + UInt16(getpid() % 90)
        let announcer = try PeerAnnouncer(PeerAnnouncement(tcpPort: 1234, authRequired: false, name: "x"), broadcast: false, port: port)
        defer { announcer.stop() }
        let found = try discoverInstruments(seconds: 1.5, port: port)
        XCTAssertEqual(found, [PeerAnnouncement(tcpPort: 1234, authRequired: false, name: "x", host: "127.0.0.1")])
    }

    func testRFCOMMWithoutBluetoothSaysWhy() throws {
        guard let why = RFCOMMTransport.unavailableReason() else { throw XCTSkip("Bluetooth is present") }
        XCTAssertThrowsError(try RFCOMMTransport().connect(to: "00:00:00:00:00:02", timeout: 1)) {
            XCTAssertEqual($0 as? PeerError, .noBluetooth(why))
            XCTAssertEqual("\($0)", why, "one line, as it is")
        }
        XCTAssertThrowsError(try RFCOMMTransport().listen(on: "")) { XCTAssertEqual($0 as? PeerError, .noBluetooth(why)) }
        XCTAssertThrowsError(try RFCOMMTransport().connect(to: "not-an-address", timeout: 1)) {
            XCTAssertEqual("\($0)", "'not-an-address': expected a Bluetooth address XX:XX:XX:XX:XX:XX[@CHANNEL]")
        }
        XCTAssertTrue(BluetoothAddress.looksLike("00:1A:7d:DA:71:13@3"))
        XCTAssertFalse(BluetoothAddress.looksLike("127.0.0.1:47810"))
    }
}
