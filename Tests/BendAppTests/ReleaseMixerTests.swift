// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// The mixer `make run` ships is the release build's: `-target-cpu haswell -DBEND_FMA`
/// when the CPU has AVX2 and FMA, so its kernel is compiled differently (fused
/// multiply-adds, other vector code) from this debug build's, which the reference tests
/// check. Here the release binary renders the same scripts as the debug one; the largest
/// difference must stay below −100 dBFS. `make test` builds the release binary first;
/// without it (a plain `swift test`) the test is skipped.
final class ReleaseMixerTests: XCTestCase {
    func testReleaseBuildRendersLikeTheDebugBuild() throws {
        let release = BinaryRunner.packageRoot.appendingPathComponent(".build/release/bendsynth")
        guard FileManager.default.isExecutableFile(atPath: release.path) else {
            throw XCTSkip("no release build (make test builds one first)")
        }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The demo, and 64 touches moving every 10 ms at staggered times (so every period
        // splits voices at their own frames), one sliding to the pad's edge and back.
        var lines: [String] = []
        for id in 1...64 { lines.append(#"{"t": 0, "type": "down", "id": \#(id), "x": \#(0.2 + 0.01 * Double(id)), "y": 0.02}"#) }
        for step in 1..<100 {
            for id in 1...64 {
                let t = 0.01 * Double(step) + 0.000_15 * Double(id)
                let x = id == 1 ? (step % 40 < 20 ? 0.001 : 0.6) : 0.2 + 0.01 * Double((id + step) % 60)
                lines.append(#"{"t": \#(t), "type": "move", "id": \#(id), "x": \#(x), "y": \#(0.01 + 0.0002 * Double(step % 50))}"#)
            }
        }
        for id in 1...64 { lines.append(#"{"t": 1.1, "type": "up", "id": \#(id)}"#) }
        let moving = dir.appendingPathComponent("moving.jsonl")
        try lines.joined(separator: "\n").write(to: moving, atomically: true, encoding: .utf8)
        let demo = BinaryRunner.packageRoot.appendingPathComponent("Assets/demo.jsonl")

        // The default (band-limited tables, limiter on), and cubic as before.
        for (name, script, interp) in [("demo", demo, "bandlimited"), ("64 moving touches", moving, "bandlimited"),
                                       ("64 moving touches, cubic", moving, "cubic")] {
            var outputs: [[Float]] = []
            for (build, binary) in [("debug", BinaryRunner.executable), ("release", release)] {
                let out = dir.appendingPathComponent("\(build).wav")
                let p = Process()
                p.executableURL = binary
                p.arguments = ["render", script.path, "-o", out.path, "--voices", "64", "--interp", interp]
                p.standardError = FileHandle.nullDevice
                try p.run()
                p.waitUntilExit()
                XCTAssertEqual(p.terminationStatus, 0, "\(build) render of \(name)")
                outputs.append(try WAVReader.read(out.path).samples)
            }
            XCTAssertEqual(outputs[0].count, outputs[1].count, name)
            var worst: Float = 0, peak: Float = 0
            for (a, b) in zip(outputs[0], outputs[1]) {
                worst = max(worst, abs(a - b))
                peak = max(peak, abs(a))
            }
            print(String(format: "%@: peak %.3f, release − debug largest difference %.1f dBFS", name, peak, Measure.dB(Double(worst))))
            XCTAssertGreaterThan(peak, 0.05, "\(name) sounded")
            XCTAssertLessThan(Measure.dB(Double(worst)), -100, name)
        }
    }
}
