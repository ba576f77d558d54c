// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendPeers
import Glibc
import Synchronization
import XCTest

final class BrowsingTests: XCTestCase {
    private let s: UInt64 = 1_000_000_000

    func testTrackerEmitsAvailableOnceAndUnavailableAfterExpiry() {
        var t = AnnouncementTracker(expiry: 3.5)
        let a = PeerAnnouncement(tcpPort: 47810, authRequired: false, name: "bendsynth on a", host: "10.0.0.1")
        let b = PeerAnnouncement(tcpPort: 47810, authRequired: true, name: "bendsynth on b", host: "10.0.0.2")
        let first = t.heard(a, at: 10 * s)
        XCTAssertEqual(first?.state, .available)
        XCTAssertEqual(first?.peer.name, "bendsynth on a")
        XCTAssertEqual(first?.peer.address, "10.0.0.1:47810")
        XCTAssertNil(t.heard(a, at: 11 * s), "a repeat is not a change")
        var renamed = a; renamed.name = "stage"
        let change = t.heard(renamed, at: 13 * s)
        XCTAssertEqual(change?.peer.name, "stage")
        XCTAssertEqual(change?.peer.id, first?.peer.id, "same host:port keeps its id")
        let bChange = t.heard(b, at: 14 * s)
        XCTAssertEqual(bChange?.detail, "announced, shared key required")
        XCTAssertNotEqual(bChange?.peer.id, first?.peer.id)
        XCTAssertEqual(t.expire(at: 15 * s).count, 0)
        let gone = t.expire(at: 16 * s + s / 2 + 1)
        XCTAssertEqual(gone.map(\.peer.name), ["stage"])
        XCTAssertEqual(gone.map(\.state), [.unavailable])
        XCTAssertEqual(t.available.map(\.name), ["bendsynth on b"])
        XCTAssertEqual(t.expire(at: 100 * s).map(\.peer.name), ["bendsynth on b"])
        XCTAssertTrue(t.available.isEmpty)
        XCTAssertEqual(t.heard(a, at: 101 * s)?.state, .available, "heard again after expiry: available again")
    }

    func testSessionReportsAnInstrumentAvailableThenUnavailableOverLoopback() throws {
        let port: UInt16 = 48_100 + UInt16(getpid() % 90)
        let events = Mutex<[PeerStateChange]>([])
        let session = try PeerSession(configuration: .init(displayName: "controller", role: .client))
        session.onStateChange = { c in events.withLock { $0.append(c) } }
        defer { session.stop() }
        try session.browse(port: port, expiry: 1.5)
        var announcer: PeerAnnouncer? = try PeerAnnouncer(PeerAnnouncement(tcpPort: 4321, authRequired: true, name: "bendsynth on stage"), broadcast: false, port: port)
        XCTAssertTrue(waitFor(5) { events.withLock { $0.count } >= 1 })
        XCTAssertEqual(session.availableInstruments, [PeerAnnouncement(tcpPort: 4321, authRequired: true, name: "bendsynth on stage", host: "127.0.0.1")])
        announcer?.stop(); announcer = nil
        XCTAssertTrue(waitFor(5) { events.withLock { $0.count } >= 2 })
        let seen = events.withLock { $0 }
        XCTAssertEqual(seen.map(\.state), [.available, .unavailable])
        XCTAssertEqual(seen.map(\.peer.name), ["bendsynth on stage", "bendsynth on stage"])
        XCTAssertEqual(seen.map(\.peer.address), ["127.0.0.1:4321", "127.0.0.1:4321"])
        XCTAssertEqual(seen[0].peer.id, seen[1].peer.id)
        XCTAssertTrue(session.availableInstruments.isEmpty)
    }

    func testFindInstrumentsByNameResolvesToHostAndPort() throws {
        let port: UInt16 = 48_200 + UInt16(getpid() % 90)
        let a = try PeerAnnouncer(PeerAnnouncement(tcpPort: 5001, authRequired: false, name: "Stage PC"), broadcast: false, port: port)
        let b = try PeerAnnouncer(PeerAnnouncement(tcpPort: 5002, authRequired: false, name: "other"), broadcast: false, port: port)
        defer { a.stop(); b.stop() }
        XCTAssertEqual(try findInstruments(named: "Stage PC", seconds: 5, port: port).map(\.tcpPort), [5001])
        XCTAssertEqual(try findInstruments(named: "stage pc", seconds: 5, port: port).map(\.tcpPort), [5001], "case-insensitive when no exact match")
        XCTAssertEqual(try findInstruments(named: "nobody", seconds: 1.2, port: port), [])
    }
}
