// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendPeers
import BendSystem
import BendTestSupport
import Foundation
import Glibc
import XCTest

/// `remote TARGET`: which kind of target, and a display name resolved through the
/// instruments' UDP announcements.
final class RemoteTargetTests: XCTestCase {
    func testTargetsAreSortedIntoAddressesAndNames() {
        XCTAssertEqual(RemoteTarget.classify("47810"), .tcp(":47810"))
        XCTAssertEqual(RemoteTarget.classify("10.0.0.2:47810"), .tcp("10.0.0.2:47810"))
        XCTAssertEqual(RemoteTarget.classify("10.0.0.2"), .tcp("10.0.0.2"))
        XCTAssertEqual(RemoteTarget.classify("localhost"), .tcp("localhost"))
        XCTAssertEqual(RemoteTarget.classify("00:1A:7D:DA:71:13@3"), .bluetooth("00:1A:7D:DA:71:13@3"))
        XCTAssertEqual(RemoteTarget.classify("bendsynth on stage"), .name("bendsynth on stage"))
        XCTAssertEqual(RemoteTarget.classify("no-such-host-bendsynth.invalid"), .name("no-such-host-bendsynth.invalid"))
    }

    func testANameResolvesToTheAnnouncingInstrumentAndAmbiguityIsAUsageError() throws {
        let port: UInt16 = 48_300 + UInt16(getpid() % 90)
        let a = try PeerAnnouncer(PeerAnnouncement(tcpPort: 6001, authRequired: false, name: "twin"), broadcast: false, port: port)
        defer { a.stop() }
        XCTAssertEqual(try RemoteTarget.name("twin").resolved(seconds: 5, port: port), .tcp("127.0.0.1:6001"))
        let b = try PeerAnnouncer(PeerAnnouncement(tcpPort: 6002, authRequired: false, name: "twin"), broadcast: false, port: port)
        defer { b.stop() }
        XCTAssertThrowsError(try RemoteTarget.name("twin").resolved(seconds: 5, port: port)) {
            XCTAssertEqual("\($0)", "remote: 2 instruments are named 'twin' (id - at 127.0.0.1:6001; id - at 127.0.0.1:6002); give HOST:PORT")
            XCTAssertTrue($0 is UsageError, "\($0)")
        }
        XCTAssertThrowsError(try RemoteTarget.name("nobody").resolved(seconds: 1, port: port)) {
            XCTAssertEqual("\($0)", "remote: no instrument named 'nobody' heard within 1 s and no host of that name (bendsynth peers lists the instruments heard)")
            XCTAssertEqual(($0 as? InstrumentError)?.kind, .runtime)
        }
    }

    /// Instruments are told apart by their instance id: one heard from two addresses
    /// (loopback and another) is one, found at its loopback address; another instance
    /// announcing the same name (a forger) makes the name ambiguous, and the error names
    /// both by id and address.
    func testOneInstrumentOnTwoAddressesIsOneAndATwinWithAnotherIdClashes() throws {
        let port: UInt16 = 48_400 + UInt16(getpid() % 90)
        let sender = AnnouncementSender(port: port)
        defer { sender.stop() }
        let real = PeerAnnouncement(tcpPort: 6101, authRequired: true, name: "stage", instance: 0x1111_2222_3333_4444)
        try sender.add(real.text, from: "127.0.0.2")
        try sender.add(real.text, from: "127.0.0.1")
        let found = try findInstruments(named: "stage", seconds: 5, port: port)
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertEqual(found.first?.host, "127.0.0.1", "loopback is preferred: \(found)")
        XCTAssertEqual(found.first?.alsoAt, ["127.0.0.2"])
        XCTAssertEqual(try RemoteTarget.name("stage").resolved(seconds: 5, port: port), .tcp("127.0.0.1:6101"))

        let forged = PeerAnnouncement(tcpPort: 6101, authRequired: true, name: "stage", instance: 0x9999_0000_0000_0001)
        try sender.add(forged.text, from: "127.0.0.3")
        XCTAssertThrowsError(try RemoteTarget.name("stage").resolved(seconds: 5, port: port)) {
            XCTAssertEqual("\($0)", "remote: 2 instruments are named 'stage' (id 1111222233334444 at 127.0.0.1:6101; id 9999000000000001 at 127.0.0.3:6101); give HOST:PORT")
            XCTAssertTrue($0 is UsageError, "\($0)")
        }
    }
}
