// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendApp
import BendPeers
import XCTest

/// `play --bluetooth --allow/--accept-all`, and every Bluetooth path saying plainly that
/// there is no adapter on a machine without one.
final class BluetoothAdmissionTests: XCTestCase {
    func testAllowListAndAcceptAllDecideInvitations() throws {
        var a = BluetoothAdmission()
        try a.allow("00:1a:7d:da:71:13, 11:22:33:44:55:66")
        let listed = PeerInfo(id: PeerID(1), name: "phone", address: "00:1A:7D:DA:71:13")
        let stranger = PeerInfo(id: PeerID(2), name: "?", address: "AA:BB:CC:DD:EE:FF")
        guard case .accept = a.decide(listed) else { return XCTFail("a listed address is accepted") }
        guard case .decline(let why) = a.decide(stranger) else { return XCTFail("a stranger is declined") }
        XCTAssertEqual(why, "AA:BB:CC:DD:EE:FF is not allowed here (the instrument's player can add --allow AA:BB:CC:DD:EE:FF or --accept-all)")
        a.acceptAll = true
        guard case .accept = a.decide(stranger) else { return XCTFail("--accept-all accepts anyone") }
        XCTAssertThrowsError(try a.allow("00:1A:7D:DA:71:13,nope")) {
            XCTAssertEqual("\($0)", "play: --allow 'nope': expected Bluetooth addresses XX:XX:XX:XX:XX:XX separated by commas")
        }
    }

    func testBluetoothOptionsOnTheCommandLine() throws {
        let bad = try BinaryRunner.run(["play", "--bluetooth", "--allow", "00:11", "--no-terminal"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("--allow '00:11': expected Bluetooth addresses"), bad.stderr)
        let alone = try BinaryRunner.run(["play", "--accept-all", "--no-terminal"])
        XCTAssertEqual(alone.status, 2, alone.stderr)
        XCTAssertTrue(alone.stderr.contains("--allow and --accept-all are for Bluetooth players; add --bluetooth"), alone.stderr)
        guard let why = BluetoothAddress.unavailableReason() else { throw XCTSkip("this machine has a Bluetooth adapter") }
        for args in [["play", "--bluetooth", "--allow", "00:11:22:33:44:55", "--no-terminal"],
                     ["play", "--bluetooth", "--accept-all", "--no-terminal"],
                     ["remote", "00:11:22:33:44:55@3", "--script", "/dev/null"]] {
            let r = try BinaryRunner.run(args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(why), "\(args): \(r.stderr)")
        }
    }
}
