// SPDX-License-Identifier: GPL-3.0-or-later
import BendInput
import Synchronization
import XCTest

/// Decodes `text` as the terminal reader does (one read, then every timeout due).
func decodeTerminal(_ text: String) -> [TerminalEvent] {
    var decoder = TerminalDecoder()
    return decoder.feed(Array(text.utf8), at: 1) + decoder.tick(at: 60_000_000_000)
}

final class RemoteKeyboardTests: XCTestCase {
    /// Feeds `input`, decoded once as the pad's reader does, through the filter; returns
    /// what reaches the pad (as the decoded events of the bytes that did before the
    /// terminal was read once) and the lines sent.
    func run(_ input: String) throws -> (pad: [TerminalEvent], sent: [String], typing: String?) {
        let sent = Mutex<[String]>([])
        let k = RemoteKeyboard(onText: { t in sent.withLock { $0.append(t) } })
        let out = decodeTerminal(input).filter { !k.filter($0) }
        return (out, sent.withLock { $0 }, k.line)
    }

    func testSlashOpensALineThatEnterSendsAndEverythingElseReachesThePad() throws {
        let r = try run("ab/hé\u{7f}ello\rq")
        XCTAssertEqual(r.pad, decodeTerminal("abq"))
        XCTAssertEqual(r.sent, ["hello"], "Backspace removes the whole é")
        XCTAssertNil(r.typing)
    }

    func testSlashInsideMouseReportsAndPastesIsNotALine() throws {
        let mouse = "\u{1b}[<0;10;5M", paste = "\u{1b}[200~a/b\u{1b}[201~"
        let r = try run(mouse + paste + "/x")
        XCTAssertEqual(r.pad, decodeTerminal(mouse + paste))
        XCTAssertEqual(r.typing, "x")
    }

    func testEscCancelsAndItsSequenceStillReachesThePad() throws {
        let r = try run("/abc\u{1b}[<0;3;4m")
        XCTAssertEqual(r.pad, decodeTerminal("\u{1b}[<0;3;4m"))
        XCTAssertEqual(r.sent, [])
        XCTAssertNil(r.typing)
    }

    /// Issue 16: Esc cancels the line and goes no further: at the pad it is the panic key,
    /// which would end every held note. (A mouse report typed after it plays.)
    func testEscCancelsTheLineWithoutReachingThePad() throws {
        let r = try run("/abc\u{1b}")
        XCTAssertEqual(r.pad, [], "Esc consumed")
        XCTAssertEqual(r.sent, [])
        XCTAssertNil(r.typing)
        // Kitty's Escape press (CSI 27 u) likewise; its release reaches the pad, which ignores it.
        let k = try run("/x\u{1b}[27u\u{1b}[<0;3;4M")
        XCTAssertEqual(k.pad, decodeTerminal("\u{1b}[<0;3;4M"))
        XCTAssertNil(k.typing)
    }

    /// Decoded keys: an arrow (a sequence) cancels and reaches the pad; Ctrl-C cancels and
    /// is consumed (it would quit the pad); kitty releases while typing are consumed.
    func testOtherKeysWhileTyping() throws {
        let arrow = "\u{1b}[D"
        var r = try run("/ab" + arrow + "c")
        XCTAssertEqual(r.pad, decodeTerminal(arrow + "c"))
        XCTAssertNil(r.typing)
        r = try run("/ab\u{03}q")
        XCTAssertEqual(r.pad, decodeTerminal("q"), "Ctrl-C ended the line, not the pad")
        XCTAssertEqual(r.sent, [])
        r = try run("/a\u{1b}[97;1:3u" + "b\r")  // kitty: the release of 'a'
        XCTAssertEqual(r.pad, [])
        XCTAssertEqual(r.sent, ["ab"])
    }
}
