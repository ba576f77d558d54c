import BendPeers
import Foundation
import Glibc
import XCTest

/// `peers`, and Bluetooth asked for on a machine without it.
final class PeersCommandTests: XCTestCase {
    func testBluetoothAskedForWithoutAnAdapterExitsOneAndSaysSo() throws {
        guard let why = BluetoothAddress.unavailableReason() else { throw XCTSkip("this machine has a Bluetooth adapter") }
        XCTAssertTrue(why.hasPrefix("Bluetooth: "), why)
        for args in [["play", "--bluetooth", "--no-terminal"], ["remote", "00:00:00:00:00:02"], ["peers", "--bluetooth", "--seconds", "1"]] {
            let r = try BinaryRunner.run(args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(why), "\(args): \(r.stderr)")
        }
    }

    func testPeersListsAnAnnouncedInstrumentAndNotesBluetooth() throws {
        let name = "test-instrument-\(getpid())"
        let announcer = try PeerAnnouncer(PeerAnnouncement(tcpPort: 47999, authRequired: true, name: name), broadcast: false)
        defer { announcer.stop() }
        let r = try BinaryRunner.run(["peers", "--seconds", "2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.first?.hasPrefix("Bluetooth: ") ?? false, r.stdout)
        XCTAssertTrue(lines.contains("127.0.0.1:47999\tkey\t\(name)"), r.stdout)
    }
}
