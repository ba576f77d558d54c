// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendEngine
import BendTestSupport
import Foundation
import XCTest

/// A stereo tone file plays stereo: each voice's left and right are the file's, panned
/// as a pair by the equal-power law.
final class StereoToneTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// 440 Hz on the left, 660 Hz on the right (1 s, whole cycles: it loops whole).
    func stereoFile() -> String {
        let path = dir + "/stereo.wav"
        var interleaved: [Float] = []
        for i in 0..<48_000 {
            interleaved.append(Float(0.5 * sin(2 * Double.pi * 440 * Double(i) / 48_000)))
            interleaved.append(Float(0.5 * sin(2 * Double.pi * 660 * Double(i) / 48_000)))
        }
        writeSoundFile(path, interleaved, rate: 48_000, channels: 2)
        return path
    }

    /// One voice at ratio 1 with the tilt pan at `pan`: the output's channels from 0.1 s.
    func render(_ path: String, pan: Float, interpolation: Interpolation) throws -> (left: [Float], right: [Float]) {
        let loaded = try ToneLoader.load(path: path, outputRate: 48_000, findRoot: false)
        let layout = RegionMaker.layout(loaded)
        let levels = interpolation == .bandLimited ? try RegionMaker.levels(layout, path: path) : nil
        let h = RenderHarness(voices: 2, region: RegionMaker.region(layout, rate: 48_000, levels: levels)) { $0.interpolation = interpolation }
        defer { h.free() }
        let out = h.render(frames: 24_000, events: [EngineEvent(frame: 0, kind: .pan, value: pan),
                                                    EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 1)])
        return (Array(Measure.channel(out, 0)[4800...]), Array(Measure.channel(out, 1)[4800...]))
    }

    func testLeftAndRightStayAsInTheFileAndPanByTheEqualPowerLaw() throws {
        let path = stereoFile()
        for interpolation in [Interpolation.cubic, .bandLimited] {
            let (l, r) = try render(path, pan: 0, interpolation: interpolation)
            XCTAssertEqual(Measure.peakFrequency(l, rate: 48_000), 440, accuracy: 2, "\(interpolation): left is the file's left")
            XCTAssertEqual(Measure.peakFrequency(r, rate: 48_000), 660, accuracy: 2, "\(interpolation): right is the file's right")
            let power = LoopPlaybackTests.power
            XCTAssertLessThan(10 * log10(power(l[...], 660) / power(l[...], 440)), -80, "\(interpolation): no 660 Hz on the left")
            XCTAssertLessThan(10 * log10(power(r[...], 440) / power(r[...], 660)), -80, "\(interpolation): no 440 Hz on the right")
            let channel = 0.5 / 2.0.squareRoot()  // each channel's RMS in the file
            XCTAssertEqual(Measure.dB(Measure.rms(l) / channel), -3.01, accuracy: 0.05, "\(interpolation): −3 dB at the centre")
            XCTAssertEqual(Measure.dB(Measure.rms(r) / channel), -3.01, accuracy: 0.05, "\(interpolation): −3 dB at the centre")
        }
        // The pan law: left² + right² is the same at every pan; hard left keeps the left
        // channel whole and silences the right.
        var powers: [Double] = []
        for pan: Float in [-1, -0.5, 0, 0.3, 1] {
            let (l, r) = try render(path, pan: pan, interpolation: .cubic)
            let (pl, pr) = (pow(Measure.rms(l), 2), pow(Measure.rms(r), 2))
            powers.append(pl + pr)
            let theta = Double(pan + 1) * Double.pi / 4
            XCTAssertEqual(pl / 0.125, cos(theta) * cos(theta), accuracy: 1e-3, "left at pan \(pan)")
            XCTAssertEqual(pr / 0.125, sin(theta) * sin(theta), accuracy: 1e-3, "right at pan \(pan)")
        }
        XCTAssertLessThan(Measure.dB((powers.max()! / powers.min()!).squareRoot()), 0.01, "\(powers)")
    }
}
