// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest

/// The web pad's status line shows the round trip once a second, not at each of the 5
/// ping answers a second: every new text costs the phone a layout and a frame (and, in
/// headless Chromium, delays a DevTools touch that lands on that frame); a change of the
/// voices or xruns shows at once.
final class WebStatusTests: XCTestCase {
    func testTheStatusLineChangesOnceASecondWhileAnswersComeFiveTimesASecond() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        let driver = try play.chromium("status", ["3"])
        func number(_ key: String) -> Int { Int(driver.first { $0.first == key }?.dropFirst().first ?? "") ?? -1 }
        let text = driver.first { $0.first == "text" }?.dropFirst().joined(separator: " ") ?? ""
        XCTAssertGreaterThanOrEqual(number("pongs"), 10, "\(driver)")   // 15 in 3 s, at 200 ms
        XCTAssertLessThanOrEqual(number("changes"), 4, "\(driver)")     // at most once a second…
        XCTAssertTrue(text.contains("rtt ") && text.contains(" ms"), text) // …and the round trip shown
        XCTAssertEqual(play.terminate(), 0, play.stderr)
    }

    /// A change of the voices (or xruns) shows at the answer that brings it, not at the
    /// next once-a-second refresh: right after each answer the line says its voices (a
    /// finger down, held, lifted).
    func testTheVoicesShowAtTheAnswerThatBringsThem() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        let driver = try play.chromium("voices", driver: "layout_driver.py")
        XCTAssertEqual(play.terminate(), 0, play.stderr)
        let answers = driver.filter { $0.first == "answer" && $0.count == 3 }
        XCTAssertTrue(answers.contains { $0[1] == "1" }, "\(driver)")
        for a in answers { XCTAssertTrue(a[2].contains("\(a[1])_voices"), "an answer with \(a[1]) voices, the line: \(a[2])") }
    }
}
