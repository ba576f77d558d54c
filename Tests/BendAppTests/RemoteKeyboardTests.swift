@testable import BendApp
import Synchronization
import XCTest

final class RemoteKeyboardTests: XCTestCase {
    /// Feeds `input` through the filter; returns what reaches the pad and the lines sent.
    func run(_ input: String) throws -> (pad: String, sent: [String], typing: String?) {
        let sent = Mutex<[String]>([])
        let k = try RemoteKeyboard(onText: { t in sent.withLock { $0.append(t) } })
        defer { k.stop() }
        var out: [UInt8] = []
        for b in Array(input.utf8) { k.filter(b, into: &out) }
        return (String(decoding: out, as: UTF8.self), sent.withLock { $0 }, k.line)
    }

    func testSlashOpensALineThatEnterSendsAndEverythingElseReachesThePad() throws {
        let r = try run("ab/hé\u{7f}ello\rq")
        XCTAssertEqual(r.pad, "abq")
        XCTAssertEqual(r.sent, ["hello"], "Backspace removes the whole é")
        XCTAssertNil(r.typing)
    }

    func testSlashInsideMouseReportsAndPastesIsNotALine() throws {
        let mouse = "\u{1b}[<0;10;5M", paste = "\u{1b}[200~a/b\u{1b}[201~"
        let r = try run(mouse + paste + "/x")
        XCTAssertEqual(r.pad, mouse + paste)
        XCTAssertEqual(r.typing, "x")
    }

    func testEscCancelsAndItsSequenceStillReachesThePad() throws {
        let r = try run("/abc\u{1b}[<0;3;4m")
        XCTAssertEqual(r.pad, "\u{1b}[<0;3;4m")
        XCTAssertEqual(r.sent, [])
        XCTAssertNil(r.typing)
    }
}
