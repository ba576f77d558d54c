// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest

/// The web pad's labels in a phone's viewports (headless Chromium, web/layout_driver.py):
/// at 360×640, 400×800 and 800×400 with `--scale major` no two guide labels overlap and
/// none is under the sustain button or the status line; the roots are labelled with their
/// octave ("A4") and every natural note of the scale ("D" in portrait too) is; with six
/// fingers down, three close together and two side by side just above the guides' labels,
/// no two touch labels overlap, nor the sustain button, nor a guide label still shown.
final class WebLayoutTests: XCTestCase {
    struct Box: CustomStringConvertible {
        var text: String, l: Double, t: Double, r: Double, b: Double
        func overlaps(_ o: Box) -> Bool { l < o.r && o.l < r && t < o.b && o.t < b }
        var description: String { "\(text)[\(l),\(t)…\(r),\(b)]" }
    }

    func testLabelsNeverOverlapEachOtherOrTheControls() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0", "--scale", "major"], dir: try webTestDirectory())
        let lines = try play.chromium("layout", driver: "layout_driver.py")
        XCTAssertEqual(play.terminate(), 0, play.stderr)
        var views: [(String, [[String]])] = []
        for line in lines where line.count > 1 {
            if line[0] == "view" { views.append((line[1...2].joined(separator: "×"), [])) } else if !views.isEmpty { views[views.count - 1].1.append(line) }
        }
        XCTAssertEqual(views.map(\.0), ["360×640", "400×800", "800×400"], "\(lines)")
        for (view, rows) in views {
            func boxes(_ kind: String) -> [Box] {
                rows.filter { $0.first == kind && $0.count == 6 }.map { Box(text: $0[1], l: Double($0[2])!, t: Double($0[3])!, r: Double($0[4])!, b: Double($0[5])!) }
            }
            let controls = boxes("sustain") + boxes("status")
            XCTAssertEqual(controls.count, 2, view)
            let guides = boxes("guide"), held = boxes("heldguide"), touches = boxes("touchlabel")
            for (kind, labels) in [("guide", guides), ("touch", touches), ("guide (fingers down)", held)] {
                for (i, a) in labels.enumerated() {
                    for b in labels[(i + 1)...] { XCTAssertFalse(a.overlaps(b), "\(view): \(kind) labels \(a) and \(b) overlap") }
                    for c in controls { XCTAssertFalse(a.overlaps(c), "\(view): \(kind) label \(a) under \(c.text)") }
                }
            }
            // A touch's label and the guide labels still shown around it.
            for t in touches {
                for g in held { XCTAssertFalse(t.overlaps(g), "\(view): touch label \(t) over guide label \(g)") }
            }
            XCTAssertFalse(held.isEmpty, "\(view): guide labels shown beside the fingers")
            let names = Set(guides.map(\.text))
            XCTAssertTrue(names.contains("A4"), "\(view): the root named with its octave: \(names.sorted())")
            for natural in ["B", "D", "E"] { XCTAssertTrue(names.contains(natural), "\(view): \(natural) labelled: \(names.sorted())") }
            XCTAssertGreaterThanOrEqual(touches.count, 2, "\(view): the touches' labels shown: \(touches)")
            XCTAssertTrue(touches.allSatisfy { $0.text.contains("¢_g0.") }, "\(view): each says its step and gain: \(touches)")
        }
    }
}
