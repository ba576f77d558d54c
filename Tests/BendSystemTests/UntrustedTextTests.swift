// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import XCTest

/// `UntrustedText`: what a terminal could act on is written out; the rest is kept.
final class UntrustedTextTests: XCTestCase {
    func testControlsAreWrittenOutAndTextIsKept() {
        XCTAssertEqual(UntrustedText.escaped("ev\u{1B}]2;PWNED\u{07}"), "ev\\x1b]2;PWNED\\x07")
        XCTAssertEqual(UntrustedText.escaped("a\tb\nc\rd\u{7F}\u{0}"), "a\\x09b\\x0ac\\x0dd\\x7f\\x00")
        XCTAssertEqual(UntrustedText.escaped("\u{9B}31m \u{85}"), "\\u009b31m \\u0085", "C1 controls")
        XCTAssertEqual(UntrustedText.escaped("abc\u{202E}fed\u{2066}\u{2069}\u{200F}\u{2028}"), "abc\\u202efed\\u2066\\u2069\\u200f\\u2028", "bidi and separators")
        XCTAssertEqual(UntrustedText.escaped("Grüße, 東京 🎹 a\\x1b"), "Grüße, 東京 🎹 a\\x1b", "printable text and backslashes stay")
        XCTAssertEqual(UntrustedText.escaped("one\ntwo\u{1B}", keepingNewlines: true), "one\ntwo\\x1b")
    }

    func testEscapingTwiceChangesNothing() {
        let once = UntrustedText.escaped("\u{1B}[31mred\u{9B}\u{202E}\n")
        XCTAssertEqual(UntrustedText.escaped(once), once)
        XCTAssertFalse(once.unicodeScalars.contains(where: UntrustedText.needsEscape))
    }

    func testBytesThatAreNotUTF8AreWrittenOutByteByByte() {
        XCTAssertEqual(UntrustedText.escaped(bytes: Array("ok é".utf8)), "ok é")
        XCTAssertEqual(UntrustedText.escaped(bytes: [0x61, 0xE2, 0x82, 0x41, 0xFF, 0x1B, 0xC2, 0x9B]), "a\\xe2\\x82A\\xff\\x1b\\u009b")
        XCTAssertEqual(UntrustedText.escaped(bytes: [0xF0, 0x9F, 0x8E, 0xB9]), "🎹")
    }
}
