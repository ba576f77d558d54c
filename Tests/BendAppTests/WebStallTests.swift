// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest

/// A phone whose page stalls 3 s with a finger down (its script paused in headless
/// Chromium): the instrument ends the touch (no stuck voice), the page shows the finger
/// "silent", and its next move plays it again, as `remote` and OSC do; play says both.
final class WebStallTests: XCTestCase {
    func testAStalledFingerIsShownSilentAndComesBackAtItsNextMove() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        let lines = try play.chromium("stall", driver: "layout_driver.py")
        XCTAssertEqual(play.terminate(), 0, play.stderr)
        XCTAssertEqual(lines.first { $0.first == "silent" }, ["silent", "False", "silent:_move_to_play", "touch.silent"], "\(lines)")
        let again = try XCTUnwrap(lines.first { $0.first == "again" }, "\(lines)")
        XCTAssertEqual(again.count, 4)
        XCTAssertEqual(again[1], "True")  // Python's words for the page's booleans
        XCTAssertTrue(again[2].hasPrefix("×1.10_"), again[2])  // x = 0.55 on the linear map, and its note
        XCTAssertEqual(again[3], "touch")
        // The take: the touch, ended by the stall, a new one from the move, its up.
        let kinds = play.touches.compactMap { $0["type"] as? String }
        XCTAssertEqual(kinds, ["down", "up", "down", "up", "end"], "\(play.touches)")
        XCTAssertEqual(play.touches.dropFirst(2).first?["x"] as? Double ?? 0, 0.55, accuracy: 0.01, "it sounds where the finger is")
        XCTAssertTrue(play.stderr.contains("web: phone 1 silent for 0.6 s: its 1 touch ended"), play.stderr)
        XCTAssertTrue(play.stderr.contains("web: phone 1: 1 held touch started again"), play.stderr)
    }
}
