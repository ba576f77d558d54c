// SPDX-License-Identifier: GPL-3.0-or-later
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

/// The key schedule of docs/PROTOCOL.md ("Keys"), checked against an independent
/// computation (Python's hmac and hashlib.blake2b with libsodium's crypto_kdf parameters:
/// key M, salt = id as 8 bytes little-endian + 8 zero bytes, person = "bendpeer" + 8 zero bytes).
final class SessionKeysTests: XCTestCase {
    func testProofsAndSubkeysMatchTheDocumentedDerivation() throws {
        let keys = SessionKeys(key: try SharedKey(bytes: Array(0..<32)), serverNonce: Array(repeating: 1, count: 32), clientNonce: Array(repeating: 2, count: 32))
        func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }
        XCTAssertEqual(hex(keys.clientProof), "bcfcbf5f57ffc815f351a8c1be599459be9da21fac5eb6a4e7bde702631009fb")
        XCTAssertEqual(hex(keys.serverProof), "dc3a2620c694a3da4945095141d1a279d8ee4900a8b524a9befc313d5f84a1d9")
        XCTAssertEqual(hex(keys.clientStream.bytes), "0fd870c625b535045f2e5bb2a39f7f8aecc20ebe2240161afdfc1619ebd03705")
        XCTAssertEqual(hex(keys.serverDatagrams.bytes), "672df6855eb6580779edfc6f7483f6e4b3fbe524b0fa4882acf7bc4619150c6d")
        // Each use and direction has its own key.
        let all = [keys.clientStream, keys.serverStream, keys.clientDatagrams, keys.serverDatagrams, keys.clientIdentity, keys.serverIdentity].map(\.bytes)
        XCTAssertEqual(Set(all.map(hex)).count, 6)
    }

    func testASealedMessageOpensOnlyUnderItsKeyCounterAndAdditionalData() {
        let k = SessionKeys(key: nil, serverNonce: randomBytes(32), clientNonce: randomBytes(32))
        let sealed = k.clientStream.seal(Array("touch".utf8), counter: 7, ad: [1, 2, 3])
        XCTAssertEqual(sealed.count, 5 + AEADKey.tagBytes)
        XCTAssertEqual(k.clientStream.open(sealed, counter: 7, ad: [1, 2, 3]), Array("touch".utf8))
        XCTAssertNil(k.clientStream.open(sealed, counter: 8, ad: [1, 2, 3]))
        XCTAssertNil(k.clientStream.open(sealed, counter: 7, ad: [1, 2, 4]))
        XCTAssertNil(k.serverStream.open(sealed, counter: 7, ad: [1, 2, 3]))
    }
}
