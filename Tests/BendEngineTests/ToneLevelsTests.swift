// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import BendTestSupport
import XCTest

/// The band-limited levels as the engine holds them (`ToneLevels.quantized`): 16-bit
/// steps of one scale for the whole tone.
final class ToneLevelsTests: XCTestCase {
    /// The largest coefficient of any level is ±32767 steps, and every coefficient is
    /// within half a step of its value: the rows keep 96 dB below the largest.
    func testQuantizedRowsAreWithinHalfAStepOfTheLargest() {
        var rng = SplitMix(seed: 0x1e_5e1)
        let rows: [[Float]] = (0..<3).map { k in
            (0..<(4 * 500)).map { _ in Float.random(in: -1...1, using: &rng) * (k == 1 ? 1.7 : 0.4) }
        }
        let levels = ToneLevels(rows: rows, aliasFreeRatio: [1, 1.5, 2], crossfadeStart: [0.98, 1.47])
        let (scale, quantized) = levels.quantized()
        let largest = rows.joined().map(abs).max()!
        XCTAssertEqual(scale, largest / 32767, accuracy: largest * 1e-9)
        XCTAssertEqual(quantized.joined().map { abs(Int($0)) }.max(), 32767, "the largest coefficient fills the range")
        var worst = 0.0  // in steps
        for (level, q) in zip(rows, quantized) {
            XCTAssertEqual(level.count, q.count)
            for (c, s) in zip(level, q) { worst = max(worst, abs(Double(s) - Double(c) / Double(scale))) }
        }
        print(String(format: "largest error %.4f of a step, %.1f dB below the largest coefficient",
                     worst, 20 * log10(worst * Double(scale) / Double(largest))))
        XCTAssertLessThanOrEqual(worst, 0.5 + 1e-6, "every coefficient within half a step")
    }
}
