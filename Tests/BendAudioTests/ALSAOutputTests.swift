// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import Foundation
import BendTestSupport
import XCTest
@testable import BendAudio

/// Test fixture: the tests' render harness playing a 440 Hz sine loop (48000 frames at
/// 48 kHz, exactly 440 cycles), 8 voices, events through its control port.
enum ALSATestTone {
    static let rate = 48_000

    static func harness(periodFrames: Int) -> RenderHarness {
        let samples = (0..<rate).map { Float(sin(2 * Double.pi * 440 * Double($0) / Double(rate))) }
        return RenderHarness(voices: 8, period: periodFrames, rate: Double(rate), tone: samples)
    }
}

extension RenderHarness {
    /// One touch: down at frame 0 (x 0.5 → ratio 1, y 1 → gain 1), up at frame 24000.
    func sendScript() {
        port.send(.touch(id: 1, phase: .down, x: 0.5, y: 1), atFrame: 0)
        port.send(.touch(id: 1, phase: .up, x: 0, y: 0), atFrame: 24_000)
    }
}

/// A fresh capture file path under /tmp.
func captureFile(_ tag: String) -> String {
    "/tmp/bendsynth-alsa-\(tag)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).raw"
}

func bytes<T>(of array: [T]) -> [UInt8] {
    array.withUnsafeBytes { Array($0) }
}

final class ALSAOutputTests: XCTestCase {
    let period = 256
    /// 1.5 s at 48 kHz, rounded up to whole periods: 282 periods = 72192 frames.
    let frameLimit: UInt64 = 72_000
    var periods: Int { (Int(frameLimit) + period - 1) / period }

    /// (a) The ALSA path byte for byte: a `type file` PCM (raw, slave null) captures what
    /// the render thread wrote; it must equal the same events rendered offline.
    func testGoldenCaptureThroughFilePCMMatchesOfflineRender() throws {
        let path = captureFile("golden")
        defer { unlink(path) }
        let config = """
            pcm.bendcapture {
                type file
                slave.pcm "null"
                file "\(path)"
                format "raw"
            }
            """
        let live = ALSATestTone.harness(periodFrames: period)
        defer { live.free() }
        live.sendScript()
        let output = try ALSAOutput(device: "bendcapture", rate: 48_000, periodFrames: period, periods: 3, configText: config)
        XCTAssertEqual(output.granted, ALSASettings(rate: 48_000, periodFrames: 256, bufferFrames: 768, format: .float32))
        XCTAssertEqual(output.description,
                       "ALSA 'bendcapture': 48000 Hz, period 256 frames, buffer 768 frames (16.0 ms), FLOAT_LE stereo")
        let clock = StreamClock(rate: 48_000, periodFrames: period)
        defer { clock.deallocate() }
        let record = SPSCRing<Float>(capacity: 2 * periods * period)
        defer { record.deallocate() }

        try output.start(mixer: live.mixer, clock: clock, record: record, frameLimit: frameLimit,
                         priority: nil, lockMemory: false)
        output.waitUntilEnded()
        XCTAssertNil(output.failure)
        XCTAssertEqual(output.periodsWritten, periods)
        XCTAssertEqual(output.xruns, 0)
        XCTAssertEqual(live.mixer.position, UInt64(periods * period))
        // The clock holds the start of the last period.
        XCTAssertEqual(clock.snapshot()?.frame, UInt64((periods - 1) * period))
        output.stop()

        let offline = ALSATestTone.harness(periodFrames: period)
        defer { offline.free() }
        offline.sendScript()
        let expected = offline.renderPeriods(periods)

        let captured = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(captured.count, periods * period * 8, "282 periods × 256 frames × 2 ch × 4 bytes")
        assertSameBytes(captured, bytes(of: expected), "file PCM capture vs offline render")

        // The record ring got the same floats.
        var recorded = [Float](repeating: 0, count: expected.count + 16)
        let n = recorded.withUnsafeMutableBufferPointer { record.read(into: $0.baseAddress!, maxCount: $0.count) }
        XCTAssertEqual(n, expected.count)
        XCTAssertTrue(Array(recorded[0..<n]) == expected, "record ring vs offline render")
        XCTAssertEqual(record.dropped, 0)

        // What was captured is the tone: sounding while held, silent after the release.
        let held = expected[2 * 4800 ..< 2 * 24_000]
        let rms = sqrt(held.reduce(0) { $0 + Double($1) * Double($1) } / Double(held.count))
        // Sine of amplitude 1, panned centre (each channel 1/√2): RMS = 0.5 (−6.02 dB).
        XCTAssertEqual(20 * log10(rms), -6.02, accuracy: 0.05)
        XCTAssertEqual(expected[(2 * 24_000 + 2 * 1000)...].map { abs($0) }.max(), 0, "silent 1000 frames after the release")
    }

    /// (b) A PCM that refuses float (`type linear` takes only integer formats): the
    /// output falls back to S16_LE and writes the float render clamped and scaled.
    func testFallsBackToS16WhenFloatIsRefused() throws {
        let path = captureFile("s16")
        defer { unlink(path) }
        let config = """
            pcm.bends16 {
                type linear
                slave {
                    pcm { type file slave.pcm "null" file "\(path)" format "raw" }
                    format S16_LE
                }
            }
            """
        let live = ALSATestTone.harness(periodFrames: period)
        defer { live.free() }
        live.sendScript()
        let output = try ALSAOutput(device: "bends16", rate: 48_000, periodFrames: period, configText: config)
        XCTAssertEqual(output.granted.format, .s16)
        XCTAssertTrue(output.description.hasSuffix("S16_LE stereo"), output.description)
        try output.start(mixer: live.mixer, clock: nil, record: nil, frameLimit: frameLimit, priority: nil, lockMemory: false)
        output.waitUntilEnded()
        XCTAssertNil(output.failure)
        output.stop()

        let offline = ALSATestTone.harness(periodFrames: period)
        defer { offline.free() }
        offline.sendScript()
        let expected = offline.renderPeriods(periods)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(data.count, periods * period * 4)
        let captured: [Int16] = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map { Int16(littleEndian: $0) }
        var worst = 0
        for (c, f) in zip(captured, expected) {
            let ideal = Int((min(max(f, -1), 1) * 32767).rounded())
            worst = max(worst, abs(Int(c) - ideal))
        }
        XCTAssertLessThanOrEqual(worst, 1, "largest difference from the clamped float render, LSB")
        XCTAssertGreaterThan(captured.map { abs(Int($0)) }.max() ?? 0, 23_000, "the tone is there (0.707 × 32767)")
    }

    /// The S16 conversion clamps out-of-range samples and maps NaN to 0.
    func testS16ConversionClampsAndRounds() {
        let input: [Float] = [0, 1, -1, 1.5, -3, 0.5, -0.5, 1 / 32767, .nan, .infinity, -.infinity]
        var out = [Int16](repeating: 7, count: input.count)
        input.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { RenderDriver.convertToS16(i.baseAddress!, $0.baseAddress!, count: input.count) }
        }
        XCTAssertEqual(out, [0, 32767, -32767, 32767, -32767, 16384, -16384, 1, 0, 32767, -32767])
    }

    /// (d) An unknown PCM: the error names the call, the device and ALSA's text.
    func testOpeningUnknownPCMNamesTheDevice() {
        XCTAssertThrowsError(try ALSAOutput(device: "nonexistent_pcm_xyz")) { error in
            guard let e = error as? ALSAError else { return XCTFail("not an ALSAError: \(error)") }
            XCTAssertEqual(e.call, "snd_pcm_open")
            XCTAssertEqual(e.code, -ENOENT)
            XCTAssertEqual(e.device, "nonexistent_pcm_xyz")
            XCTAssertEqual("\(e)", "ALSA 'nonexistent_pcm_xyz': snd_pcm_open: No such file or directory")
        }
    }

    /// A syntax error in the configuration text is reported by the load call.
    func testBadConfigTextIsReported() {
        XCTAssertThrowsError(try ALSAOutput(device: "x", configText: "pcm.x { type file ")) { error in
            XCTAssertEqual((error as? ALSAError)?.call, "snd_config_load(configText)")
        }
    }

    /// A mixer whose rate differs from the granted one is refused before any thread starts.
    func testStartRefusesMismatchedMixer() throws {
        let output = try ALSAOutput(device: "null", rate: 48_000, periodFrames: period)
        let rig = ALSATestTone.harness(periodFrames: 64)
        defer { rig.free() }
        XCTAssertThrowsError(try output.start(mixer: rig.mixer, clock: nil, record: nil, priority: nil, lockMemory: false)) { error in
            XCTAssertEqual((error as? ALSAError)?.code, -EINVAL)
            XCTAssertTrue("\(error)".contains("mixer period bound 64 < granted period 256 frames"), "\(error)")
        }
        XCTAssertEqual(output.periodsWritten, 0)
    }

    /// stop() ends a loop that has no frame limit (the null PCM takes frames at once).
    func testStopEndsAnUnlimitedLoop() throws {
        let rig = ALSATestTone.harness(periodFrames: period)
        defer { rig.free() }
        let output = try ALSAOutput(device: "null", rate: 48_000, periodFrames: period)
        try output.start(mixer: rig.mixer, clock: nil, record: nil, priority: nil, lockMemory: false)
        output.stop()
        output.stop()
        XCTAssertNil(output.failure)
        XCTAssertEqual(UInt64(output.periodsWritten * period), rig.mixer.position)
    }
}
