// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest

/// The web pad's sustain button (`s 1` / `s 0`): a finger lifted while it is held keeps
/// sounding; its up reaches the instrument's engine (and the recorded script) only when
/// the button is let go.
final class WebSustainTests: XCTestCase {
    func testAFingerLiftedWhileTheButtonIsHeldEndsAtTheLetGo() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        let driver = try play.chromium("sustain")
        XCTAssertEqual(driver.first { $0.first == "button" }, ["button", "on"])
        XCTAssertEqual(play.terminate(), 0, play.stderr)
        let lines = play.touches.map { line -> String in
            let type = line["type"] as? String ?? "?"
            return type == "sustain" ? "sustain \(line["on"] as? Bool ?? false)" : type
        }
        XCTAssertEqual(lines, ["down", "sustain true", "sustain false", "up", "end"], "\(play.touches)")
    }
}
