// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendInput
import XCTest

/// A non-UTF-8 locale draws the pad in ASCII; a narrow terminal keeps voices and xruns.
final class TerminalCharsetTests: XCTestCase {
    func testTheLocaleChoosesTheCharset() {
        XCTAssertEqual(TerminalCharset.from(environment: ["LANG": "C"]), .ascii)
        XCTAssertEqual(TerminalCharset.from(environment: [:]), .ascii)
        XCTAssertEqual(TerminalCharset.from(environment: ["LANG": "en_GB.UTF-8"]), .utf8)
        XCTAssertEqual(TerminalCharset.from(environment: ["LANG": "en_GB.UTF-8", "LC_ALL": "C"]), .ascii, "LC_ALL first")
        XCTAssertEqual(TerminalCharset.from(environment: ["LANG": "C", "LC_CTYPE": "C.utf8"]), .utf8)
        XCTAssertEqual(TerminalCharset.from(environment: ["LANG": "de_DE.ISO-8859-1", "LC_ALL": ""]), .ascii)
    }

    func status() throws -> PadStatus {
        var s = PadStatus()
        s.tuning = Tuning(scale: try XCTUnwrap(Scale.builtIn("chromatic")))
        s.pitchMap = .exponentialAround(octaves: 2, centre: 1)
        s.guides = s.tuning!.guides(pitchMap: s.pitchMap)
        s.touches = [PadStatus.Touch(id: 0, x: 0.55, y: 0.5, ratio: 1.06, gain: 0.5, label: "●")]
        s.voices = 2
        s.xruns = 3
        s.peak = 0.25
        s.sustained = true
        return s
    }

    func testASCIIDrawsEveryCellInASCII() throws {
        var s = try status()
        let unicode = TerminalScreen.lines(s, columns: 80, rows: 24).joined()
        XCTAssertTrue(unicode.contains("┌") && unicode.contains("●") && unicode.contains("¢"), "UTF-8 draws boxes")
        s.charset = .ascii
        let lines = TerminalScreen.lines(s, columns: 80, rows: 24)
        for line in lines { XCTAssertTrue(line.unicodeScalars.allSatisfy(\.isASCII), line) }
        XCTAssertTrue(lines[1].hasPrefix("+-"), lines[1])
        XCTAssertTrue(lines[21].contains("o A#4+1c g0.50"), "the touch: its marker and step: \(lines[21])")
        XCTAssertTrue(TerminalScreen.frame(s, columns: 80, rows: 24).unicodeScalars.allSatisfy(\.isASCII), "the frame written too")
    }

    func testSixtyColumnsKeepVoicesAndXruns() throws {
        for charset in [TerminalCharset.utf8, .ascii] {
            var s = try status()
            s.charset = charset
            s.voices = 4096
            s.xruns = 12345
            let line = TerminalScreen.lines(s, columns: 60, rows: 24)[22]
            XCTAssertTrue(line.contains("voices 4096  xruns 12345  SUSTAIN"), line)
        }
    }
}
