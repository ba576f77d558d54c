// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import XCTest

/// "Did you mean": edit distance and the nearest known word.
final class SuggestionTests: XCTestCase {
    func testDistanceAndNearest() {
        XCTAssertEqual(Suggestion.distance("--scael", "--scale"), 1, "a swap of neighbours is one edit")
        XCTAssertEqual(Suggestion.distance("kitten", "sitting"), 3)
        XCTAssertEqual(Suggestion.distance("", "abc"), 3)
        let options = ["--scale", "--round", "--rate", "--record", "--tone"]
        XCTAssertEqual(Suggestion.closest(to: "--scael", in: options), "--scale")
        XCTAssertEqual(Suggestion.closest(to: "--recrd", in: options), "--record")
        XCTAssertEqual(Suggestion.closest(to: "--rat", in: options), "--rate")
        XCTAssertNil(Suggestion.closest(to: "--bogus", in: options), "nothing near")
        XCTAssertNil(Suggestion.closest(to: "ab", in: ["cd"]), "short words: no guess")
        XCTAssertEqual(Suggestion.didYouMean("rendr", in: ["play", "render", "replay"]), "; did you mean 'render'?")
        XCTAssertEqual(Suggestion.didYouMean("zzzzzz", in: ["play", "render"]), "")
    }
}
