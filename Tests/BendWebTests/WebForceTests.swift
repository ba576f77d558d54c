// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendWeb
import XCTest

/// The web pad's `f ID VALUE`: a finger's second dimension, its touch's timbre.
final class WebForceTests: XCTestCase {
    let token = try! WebToken("0123456789abcdef0123456789abcdef")

    func testForceLinesDecodeStrictly() throws {
        XCTAssertEqual(try WebMessageDecoder.decode(Array("f 7 0.25".utf8)), [.force(id: 7, value: 0.25)])
        for bad in ["f 7", "f 7 1.5", "f x 0.5", "f 7 0.5 1"] {
            XCTAssertThrowsError(try WebMessageDecoder.decode(Array(bad.utf8)), bad)
        }
    }

    /// The page is told to send it only when the instrument follows timbres (`ok … timbre`);
    /// a force line of a touch that is down becomes that touch's timbre, under the id its
    /// touch goes by; one of a finger not down is dropped.
    func testAForceLineIsItsTouchsTimbre() {
        let counter = EventCounter()
        let sessions = WebSessions(token: token, timbre: true, emit: { counter.add($0) })
        let (c, _) = sessions.open(now: 0)
        XCTAssertEqual(sessions.receive(c, Array("h \(token.text)".utf8), now: 0), .keep(replies: ["ok 1 linear 69 timbre"]))
        _ = sessions.receive(c, Array("d 3 0.5 0.5 1\nf 3 0.8\nf 9 0.4".utf8), now: 0)
        guard case let .touch(id, .down, _, _)? = counter.events.first else { return XCTFail("\(counter.events)") }
        XCTAssertEqual(counter.events.count, 2, "\(counter.events)")
        XCTAssertEqual(counter.events.last, .timbre(id: id, value: 0.8))
        let plain = WebSessions(token: token, emit: { _ in })
        let (d, _) = plain.open(now: 0)
        XCTAssertEqual(plain.receive(d, Array("h \(token.text)".utf8), now: 0), .keep(replies: ["ok 1 linear 69"]))
    }
}
