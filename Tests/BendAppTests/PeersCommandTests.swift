import BendPeers
import Foundation
import Glibc
import XCTest

/// `peers`, and Bluetooth asked for on a machine without it.
final class PeersCommandTests: XCTestCase {
    func testBluetoothAskedForWithoutAnAdapterExitsOneAndSaysSo() throws {
        guard let why = BluetoothAddress.unavailableReason() else { throw XCTSkip("this machine has a Bluetooth adapter") }
        XCTAssertTrue(why.hasPrefix("no Bluetooth adapter ("), why)
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
        XCTAssertTrue(lines.contains("127.0.0.1:47999\tkey\t-\t\(name)"), r.stdout)
    }

    /// An announcement is anyone's: a name made of escape sequences (a title change, a
    /// colour) is listed written out, with no control byte on stdout; the same instance
    /// heard from two addresses is one line naming both.
    func testPeersListsAHostileNameEscapedAndOneInstanceOnTwoAddressesOnce() throws {
        let hostile = "ev\u{1B}]2;PWNED\u{07}\u{1B}[31mred\u{9B}1m\u{202E}-\(getpid())"
        let a = PeerAnnouncement(tcpPort: 47_998, authRequired: false, name: hostile, instance: 0xABCD_0000_0000_0000 | UInt64(getpid()))
        let sender = AnnouncementSender(port: PeerAnnouncement.port)
        defer { sender.stop() }
        try sender.add(a.text, from: "127.0.0.2")
        try sender.add(a.text, from: "127.0.0.1")
        let r = try BinaryRunner.run(["peers", "--seconds", "2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E },
                       "no control characters on stdout: \(r.stdout.debugDescription)")
        let shown = "ev\\x1b]2;PWNED\\x07\\x1b[31mred\\u009b1m\\u202e-\(getpid())"
        let mine = r.stdout.split(separator: "\n").filter { $0.hasSuffix(shown) }
        XCTAssertEqual(mine, ["127.0.0.1:47998,127.0.0.2:47998\topen\t\(a.instanceText)\t\(shown)"], r.stdout)
    }
}
