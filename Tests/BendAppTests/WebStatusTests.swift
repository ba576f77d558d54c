import Foundation
import XCTest

/// The web pad's status line shows the round trip, xruns and voices once a second, not
/// at each of the 5 ping answers a second: every new text costs the phone a layout and a
/// frame (and, in headless Chromium, delays a DevTools touch that lands on that frame).
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
}
