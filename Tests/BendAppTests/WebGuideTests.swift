// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest

/// The web pad draws the instrument's scale: `play --web --scale …` sends the steps after
/// `ok` (`guides`), and headless Chromium's screenshot shows a line at each step's x.
final class WebGuideTests: XCTestCase {
    func testChromaticGuidesAreDrawnAtTheSemitonesAndATouchShowsItsStep() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0", "--scale", "chromatic", "--octaves", "2"], dir: try webTestDirectory())
        // 130 cents above the centre (the root, the tone's A): A# and 30 cents.
        let driver = try play.chromium("guides", [play.dir.appendingPathComponent("guides.png").path, String(0.5 + 130.0 / 2400)])
        XCTAssertEqual(play.terminate(), 0, play.stderr)

        let pad = try XCTUnwrap(driver.first { $0.first == "pad" }.map { Double($0[1])! })
        // Two octaves of semitones centred on the root: steps −11…11 inside the pad.
        let expected = (-11...11).map { pad * (0.5 + Double($0) / 24) }
        let guides = driver.filter { $0.first == "guide" }
        XCTAssertEqual(guides.count, 23, "\(guides)")
        XCTAssertEqual(guides.map { $0[4] }.prefix(3), ["A#", "B", "C"], "\(guides)")
        XCTAssertEqual(guides.first { $0[3] == "0" }.map { $0[4] }, "A")
        // The screenshot's row at 30 %: one line at each step's x (±1.5 px), no other.
        let lines = try XCTUnwrap(driver.first { $0.first == "lines" }).dropFirst().compactMap { Double($0) }
        XCTAssertEqual(lines.count, expected.count, "lines at \(lines), expected \(expected)")
        for (got, want) in zip(lines, expected) {
            XCTAssertEqual(got, want, accuracy: 1.5, "lines at \(lines)")
        }
        // The touch's text: its nearest step and offset, as on the terminal pad.
        XCTAssertEqual(driver.first { $0.first == "touch" }?.dropFirst().joined(separator: " "), "A#4+30¢")
    }
}
