// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendPeers
import BendTestSupport
import XCTest

/// The version-2 codec fuzzed with 1 000 000 frames (seeded, so a failure repeats):
/// truncated, bit-flipped, random and over-long clear frames; sealed frames with a changed
/// byte; correctly sealed random bodies (what a key holder could send); HELLOs and
/// datagrams with a changed byte. Nothing crashes, every outcome is a message or an error,
/// and no changed sealed frame, HELLO or datagram is ever taken as genuine.
final class SealedCodecFuzzTests: XCTestCase {
    func testAMillionMutatedFramesNeverCrashAndNoChangedSealedFrameIsTaken() throws {
        var rng = SplitMix(seed: 0xb3_5d)
        func random(_ n: UInt64) -> Int { Int(rng.next() % n) }
        let key = SharedKey.generate()
        let serverNonce = randomBytes(32)
        let client = try PeerHandshake.answer(version: 2, authRequired: true, serverNonce: serverNonce, key: key, role: .client,
                                              identity: PeerIdentity(instance: 7, udpPort: 4000, udpToken: 9, name: "fuzz ♪"),
                                              nonce: randomBytes(32))
        let side = client.keys.side(asServer: false)
        let clear = FrameCodecTests.samples.map(FrameCodec.encode)
        let inner = FrameCodecTests.samples.filter { !$0.type.isHandshake && $0.type != .sealed }
        let sealed = inner.map { FrameCodec.seal($0, key: side.sendStream, counter: 0) }
        let hello = FrameCodec.encode(.hello(client.hello))
        let datagrams = inner.map { FrameCodec.sealDatagram($0, token: 5, key: side.sendDatagrams, counter: 1) }
        var decoded = 0, rejected = 0, changedTaken = 0, authenticGarbageDecoded = 0
        let rounds = 1_000_000
        for i in 0..<rounds {
            switch i % 8 {
            case 0...3:
                var f = clear[random(UInt64(clear.count))]
                switch i % 8 {
                case 0: f = Array(f.prefix(random(UInt64(f.count))))                               // truncated
                case 1: f[random(UInt64(f.count))] ^= UInt8(truncatingIfNeeded: rng.next() | 1)     // flipped
                case 2: f = (0..<random(40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }    // garbage
                default: f += (0..<random(8)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }    // trailing bytes
                }
                var d = FrameStreamDecoder()
                do { decoded += try d.feed(f).count } catch { rejected += 1 }
            case 4:   // a sealed frame with one byte changed: never opens
                let k = random(UInt64(sealed.count))
                var f = sealed[k]
                f[random(UInt64(f.count))] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                var d = FrameStreamDecoder()
                do {
                    for case .sealed(let p) in try d.feed(f) {
                        if (try? FrameCodec.open(sealed: p, key: side.receiveStreamOfServer, counter: 0)) != nil { changedTaken += 1 }
                    }
                } catch { rejected += 1 }
            case 5:   // an authentic sealed frame around random bytes: the inner decoder's errors
                let body = (0..<(1 + random(48))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                let f = [UInt8(0), UInt8(body.count + 17), FrameType.sealed.rawValue] + side.sendStream.seal(body, counter: 0, ad: [0, UInt8(body.count + 17), 64])
                var d = FrameStreamDecoder()
                do {
                    for case .sealed(let p) in try d.feed(f) {
                        _ = try FrameCodec.open(sealed: p, key: side.receiveStreamOfServer, counter: 0)
                        authenticGarbageDecoded += 1
                    }
                } catch { rejected += 1 }
            case 6:   // HELLO with one byte changed: never passes the instrument's check
                var f = hello
                f[random(UInt64(f.count))] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                var d = FrameStreamDecoder()
                do {
                    for case .hello(let h) in try d.feed(f) {
                        if (try? PeerHandshake.check(h, serverNonce: serverNonce, key: key)) != nil { changedTaken += 1 }
                    }
                } catch { rejected += 1 }
            default:  // a datagram with one byte changed (after the token): never opens
                var g = datagrams[random(UInt64(datagrams.count))]
                g[4 + random(UInt64(g.count - 4))] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                if let parts = FrameCodec.datagramParts(g[4...]), FrameCodec.openDatagram(parts, token: 5, key: side.sendDatagrams) != nil {
                    changedTaken += 1
                } else {
                    rejected += 1
                }
            }
        }
        print("fuzz v2: \(rounds) frames, \(decoded) clear frames decoded, \(authenticGarbageDecoded) authentic random bodies decoded, \(rejected) rejected, \(changedTaken) changed frames taken")
        XCTAssertEqual(changedTaken, 0)
        XCTAssertGreaterThan(rejected, rounds / 2)
        XCTAssertGreaterThan(decoded, 0)
    }
}

private extension SessionKeys.Side {
    /// What the server opens the client's stream with: the client's send key.
    var receiveStreamOfServer: AEADKey { sendStream }
}
