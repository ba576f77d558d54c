@testable import BendPeers
import Foundation
import XCTest

final class SharedKeyTests: XCTestCase {
    func testHMACMatchesAnIndependentImplementation() throws {
        // Expected value from Python's hmac.new(bytes(range(32)), msg, hashlib.sha256).
        let key = try SharedKey(bytes: Array(0..<32))
        let tag = key.authenticator(for: Array("what do ya want for nothing?".utf8))
        XCTAssertEqual(tag.map { String(format: "%02x", $0) }.joined(), "099805f4ac310786968565c098db515cc50862b420ae31e20238312344bed36a")
        XCTAssertTrue(key.verify(tag, for: Array("what do ya want for nothing?".utf8)))
        XCTAssertFalse(key.verify(tag, for: Array("what do ya want for nothing!".utf8)))
        XCTAssertFalse(SharedKey.generate().verify(tag, for: Array("what do ya want for nothing?".utf8)))
    }

    func testKeyFileIsCreatedOnceWithMode0600AndLoadsBack() throws {
        let dir = NSTemporaryDirectory() + "bendkey-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/bendsynth/key"
        let (k1, created1) = try SharedKey.loadOrCreate(path: path)
        let (k2, created2) = try SharedKey.loadOrCreate(path: path)
        XCTAssertTrue(created1)
        XCTAssertFalse(created2)
        XCTAssertEqual(k1, k2)
        let attrs = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attrs[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), k1.hex + "\n")
        try "abc\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try SharedKey.load(path: path)) {
            XCTAssertEqual("\($0)", "key file '\(path)': expected 64 hex digits, found 3 characters")
        }
    }

    func testWrongOrMissingKeyIsDeclinedAndTheRightKeyAccepted() throws {
        let key = SharedKey.generate()
        let (server, sr) = makeSession("stage", role: .server, key: key)
        defer { server.stop() }
        let address = try server.listen(on: "127.0.0.1:0")
        let (wrong, _) = makeSession("wrong", role: .client, key: SharedKey.generate())
        let (none, _) = makeSession("none", role: .client)
        let (right, _) = makeSession("right", role: .client, key: key)
        defer { wrong.stop(); none.stop(); right.stop() }
        XCTAssertThrowsError(try wrong.connect(to: address)) {
            XCTAssertEqual($0 as? PeerError, .declined(.authenticationFailed, "wrong key"))
        }
        XCTAssertThrowsError(try none.connect(to: address)) {
            XCTAssertEqual($0 as? PeerError, .declined(.authenticationFailed, "this instrument needs the shared key (--key-file)"))
        }
        XCTAssertEqual(try right.connect(to: address).name, "stage")
        XCTAssertTrue(waitFor { server.connectedPeers.map(\.name) == ["right"] })
        // Declined before the invitation: the owner never saw them as connecting.
        XCTAssertEqual(sr.states.map(\.peer.name), ["right", "right"])
    }

    func testListeningOffLoopbackWithoutAKeyIsRefused() {
        let (s, _) = makeSession("stage", role: .server)
        defer { s.stop() }
        XCTAssertThrowsError(try s.listen(on: "0.0.0.0:0")) {
            XCTAssertTrue("\($0)".hasPrefix("listening on 0.0.0.0:"), "\($0)")
            XCTAssertTrue("\($0)".hasSuffix("(not loopback) needs a shared key"), "\($0)")
        }
    }
}
