// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest

/// The web pad draws a touch without redrawing the pad: the guides are a still layer
/// (drawn when the size or the scale changes), each touch an element of its own. A
/// full-screen canvas redraw in software raster at every pointer event made each frame
/// slow, and a touch that lands while a frame is being made waits for it.
final class WebDrawingTests: XCTestCase {
    func testTapsRedrawNoFullPadAndATouchIsDrawnUnderTheFingerWithItsLabel() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        let driver = try play.chromium("redraws", ["10"])
        XCTAssertEqual(play.terminate(), 0, play.stderr)
        func field(_ key: String) -> [String] { driver.first { $0.first == key }.map { Array($0.dropFirst()) } ?? [] }

        // 10 taps, 40 pointer events: no redraw of the pad (the old page filled its whole
        // canvas at each event's frame, 40).
        XCTAssertEqual(field("taps"), ["10"])
        XCTAssertEqual(field("redraws"), ["0"], "the pad's redraws during the taps: \(driver)")
        // The pad was drawn at all (at the start: the guides), and the counter sees it.
        XCTAssertGreaterThanOrEqual(Int(field("start").first ?? "") ?? 0, 1, "the pad's redraws at the start: \(driver)")
        // A held finger: amber under it, its label's light text above it.
        let finger = field("pixel").dropFirst().compactMap { Int($0) }
        XCTAssertEqual(finger.count, 3, "\(driver)")
        if finger.count == 3 {
            XCTAssertGreaterThan(finger[0], 180, "under the finger: \(finger)")
            XCTAssertTrue((100...190).contains(finger[1]), "under the finger: \(finger)")
            XCTAssertLessThan(finger[2], 90, "under the finger: \(finger)")
        }
        XCTAssertGreaterThan(Int(field("label").last ?? "") ?? 0, 60, "the label's text pixels above the finger: \(driver)")
    }
}
