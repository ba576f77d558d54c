// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import XCTest

/// The protocol's address syntax, now a thin parser over BendSystem's `SocketAddress`:
/// the same defaults and messages as the IPv4 endpoint parser it replaces.
final class PeerAddressTests: XCTestCase {
    func testDefaultsAndForms() throws {
        XCTAssertEqual(try PeerAddress.parse("10.1.2.3").description, "10.1.2.3:47810", "HOST alone: the default port")
        XCTAssertEqual(try PeerAddress.parse(":5").description, "127.0.0.1:5", "no HOST: the default host")
        XCTAssertEqual(try PeerAddress.parse("").description, "127.0.0.1:47810")
        XCTAssertEqual(try PeerAddress.parse("192.168.0.9:0").port, 0, "0: any free port")
        XCTAssertEqual(try PeerAddress.parse("localhost:7").description, "127.0.0.1:7", "a name resolves to IPv4")
        XCTAssertTrue(try PeerAddress.parse("127.9.9.9:1").isLoopback)
        XCTAssertFalse(try PeerAddress.parse("10.0.0.1:1").isLoopback)
    }

    func testMessagesNameWhatWasGivenAndWhatWasExpected() {
        func message(_ text: String) -> String {
            do { _ = try PeerAddress.parse(text); return "no error" } catch { return "\(error)" }
        }
        XCTAssertEqual(message("10.0.0.1:x"), "'10.0.0.1:x': port 'x' is not a number 0…65535 (0: any free port)")
        XCTAssertEqual(message("10.0.0.1:70000"), "'10.0.0.1:70000': port '70000' is not a number 0…65535 (0: any free port)")
        XCTAssertTrue(message("no-such-host.invalid:5").hasPrefix("'no-such-host.invalid:5': cannot resolve host 'no-such-host.invalid': "),
                      message("no-such-host.invalid:5"))
    }
}
