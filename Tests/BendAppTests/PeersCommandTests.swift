// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import BendTestSupport
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

    /// `play --name`: the name is announced (with the instance id) and is what the
    /// remote that looks it up connects to and is told; a name with a control character
    /// is bad usage.
    func testPlayNameIsAnnouncedWithItsIdAndTheRemoteReachesIt() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = "stage \(getpid())"
        let instrument = try PeerEndToEndTests.Instrument(dir: dir, listen: { String($0) }, extra: ["--name", name])
        defer { _ = instrument.stop() }
        XCTAssertTrue(instrument.waitFor("listening for peers"), instrument.stderr)
        let r = try BinaryRunner.run(["peers", "--seconds", "2"])
        let line = r.stdout.split(separator: "\n").first { $0.hasSuffix("\t" + name) }.map(String.init) ?? ""
        let fields = line.split(separator: "\t").map(String.init)
        XCTAssertEqual(fields.count, 4, r.stdout)
        XCTAssertEqual(fields.first, "127.0.0.1:\(instrument.port)", r.stdout)
        XCTAssertTrue(fields.count == 4 && fields[2].count == 16 && UInt64(fields[2], radix: 16) != nil, "an instance id: \(r.stdout)")
        let script = dir.appendingPathComponent("tap.jsonl").path
        try "{\"t\": 0.0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 1}\n{\"t\": 0.1, \"type\": \"up\", \"id\": 1}\n"
            .write(toFile: script, atomically: true, encoding: .utf8)
        let remote = try BinaryRunner.run(["remote", name, "--script", script])
        XCTAssertEqual(remote.status, 0, remote.stderr)
        XCTAssertTrue(remote.stderr.contains("connected to '\(name)' (127.0.0.1:\(instrument.port))"), remote.stderr)

        let bad = try BinaryRunner.run(["play", "--no-terminal", "--listen", "0", "--name", "a\u{1B}]2;x\u{07}"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("option '--name': the name holds the control character U+1B"), bad.stderr)
    }
}
