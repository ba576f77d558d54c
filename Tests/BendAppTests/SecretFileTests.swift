// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Foundation
import XCTest

/// A secret's file that others on the machine can read (a shared key, a pairing token)
/// is used, with a warning that says so and how to close it; a 0600 one draws none.
final class SecretFileTests: XCTestCase {
    func testAKeyFileReadableByOthersIsWarnedOf() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = dir.appendingPathComponent("key").path, token = dir.appendingPathComponent("token").path
        try (String(repeating: "ab", count: 32) + "\n").write(toFile: key, atomically: true, encoding: .utf8)
        try (String(repeating: "t", count: 32) + "\n").write(toFile: token, atomically: true, encoding: .utf8)
        // The web port is taken, so play stops (exit 1) once the files are read and said.
        let taken = try Socket.listening(on: SocketAddress(numeric: "127.0.0.1", port: 0)!)
        defer { taken.close() }
        let port = try taken.localAddress().port
        func play() throws -> BinaryRunner.Result {
            try BinaryRunner.run(["play", "-d", "null", "--no-terminal", "--listen", "127.0.0.1:0", "--key-file", key,
                                  "--web", "127.0.0.1:\(port)", "--web-token-file", token], timeout: 20)
        }
        chmod(key, 0o644)
        chmod(token, 0o640)
        let open = try play()
        XCTAssertEqual(open.status, 1, open.stderr)
        XCTAssertTrue(open.stderr.contains("warning: the shared key '\(key)' can be read by other users of this machine (mode 0644); chmod 600 '\(key)'"), open.stderr)
        XCTAssertTrue(open.stderr.contains("warning: the pairing token file '\(token)' can be read by other users of this machine (mode 0640)"), open.stderr)
        chmod(key, 0o600)
        chmod(token, 0o600)
        let closed = try play()
        XCTAssertEqual(closed.status, 1, closed.stderr)
        XCTAssertTrue(closed.stderr.contains("the port is in use"), closed.stderr)
        XCTAssertFalse(closed.stderr.contains("can be read by other users"), closed.stderr)
    }
}
