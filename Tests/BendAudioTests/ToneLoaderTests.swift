// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendTestSupport
import CSndFile
import Foundation
import XCTest

/// The package root, found from this file's path (Tests/BendAudioTests/…).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let defaultTonePath = packageRoot.appendingPathComponent("Assets/synth_tone_mono.caf").path

/// /work/shared/realworld/audio, next to the repository (`../shared/` from the main checkout).
func realWorldAudio(_ name: String) throws -> String {
    let candidates = [
        packageRoot.deletingLastPathComponent().appendingPathComponent("shared/realworld/audio/\(name)").path,
        "/work/shared/realworld/audio/\(name)",
    ]
    guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
        throw XCTSkip("real-world file \(name) not found (looked in \(candidates))")
    }
    return path
}

/// Spectrum measurements: peak frequency from BendTestSupport's FFT, and the
/// amplitude of one component.
enum Spectrum {
    /// Frequency of the strongest spectral peak, Hz.
    static func peakFrequency(_ x: [Float], rate: Double) -> Double {
        Measure.peakFrequency(x, rate: rate)
    }

    /// Amplitude of the component at `frequency` (DFT at that one frequency, no window):
    /// exact for components with a whole number of cycles in `x`.
    static func amplitude(_ x: [Float], rate: Double, at frequency: Double) -> Double {
        var re = 0.0, im = 0.0
        for (i, v) in x.enumerated() {
            let phase = 2 * Double.pi * frequency * Double(i) / rate
            re += Double(v) * cos(phase)
            im -= Double(v) * sin(phase)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(x.count)
    }
}

func rms(_ x: [Float]) -> Double {
    (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, x.count))).squareRoot()
}

/// Largest |x[i+1] − x[i]|, optionally including the wrap from the last sample to the first.
func largestStep(_ x: [Float], wrapping: Bool = false) -> Float {
    var step: Float = 0
    for i in 1..<x.count { step = max(step, abs(x[i] - x[i - 1])) }
    if wrapping { step = max(step, abs(x[0] - x[x.count - 1])) }
    return step
}

/// A mono tone's samples with the DC the loader removed added back: the file as read.
func withDC(_ tone: LoadedTone) -> [Float] {
    let dc = Float(tone.removedDC[0])
    return tone.samples.map { $0 + dc }
}

func sine(frequency: Double, rate: Double, frames: Int, amplitude: Double = 0.5) -> [Float] {
    (0..<frames).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / rate)) }
}

final class ToneLoaderTests: XCTestCase {
    func testDefaultAssetIs440HzOneSecondAtMinus3dBFS() throws {
        let tone = try ToneLoader.load(path: defaultTonePath, outputRate: 48_000)
        XCTAssertEqual(tone.samples.count, 48_000)
        XCTAssertEqual(tone.sourceFrames, 48_000)
        XCTAssertEqual(tone.sourceRate, 48_000)
        XCTAssertEqual(tone.sourceChannels, 1)
        XCTAssertEqual(tone.notes, [])
        let peak = tone.samples.map(abs).max()!
        XCTAssertEqual(20 * log10(Double(peak)), -3, accuracy: 0.01)
        XCTAssertEqual(Spectrum.peakFrequency(tone.samples, rate: 48_000), 440, accuracy: 440 * 0.001)
        // Harmonics as documented in Assets/README.md: −6, −12, −18 dB.
        let fundamental = Spectrum.amplitude(tone.samples, rate: 48_000, at: 440)
        for (f, db) in [(880.0, -6.0), (1320, -12), (1760, -18)] {
            let level = 20 * log10(Spectrum.amplitude(tone.samples, rate: 48_000, at: f) / fundamental)
            XCTAssertEqual(level, db, accuracy: 0.01, "harmonic \(f) Hz")
        }
        // Seamless loop: the wrap from the last frame to the first is no larger than
        // the steps inside the loop.
        XCTAssertLessThanOrEqual(largestStep(tone.samples, wrapping: true), largestStep(tone.samples) * 1.0001)
    }

    func testRW15ZeroLISTChunk24BitLoads4800Frames() throws {
        let tone = try ToneLoader.load(path: try realWorldAudio("RW-15_wav_pcm24_mono_LIST_all_zero.wav"), outputRate: 48_000)
        XCTAssertEqual(tone.sourceFrames, 4_800)
        XCTAssertEqual(tone.samples.count, 4_800)
        XCTAssertEqual(Spectrum.peakFrequency(tone.samples, rate: 48_000), 1_000, accuracy: 5)
        XCTAssertEqual(tone.samples.map(abs).max()!, 0.5, accuracy: 0.001)
    }

    func testRW17BogusPipeSizesGive1600FramesResampledTo4800() throws {
        let path = try realWorldAudio("RW-17_wav_sox_pipe_bogus_RIFF_and_data_sizes.wav")
        let native = try ToneLoader.load(path: path, outputRate: 16_000)
        XCTAssertEqual(native.sourceFrames, 1_600)
        XCTAssertEqual(native.samples.count, 1_600)
        let tone = try ToneLoader.load(path: path, outputRate: 48_000)
        XCTAssertEqual(tone.sourceRate, 16_000)
        XCTAssertEqual(tone.samples.count, 4_800)
        XCTAssertEqual(Spectrum.peakFrequency(tone.samples, rate: 48_000), 500, accuracy: 2.5)
        XCTAssertTrue(tone.notes.contains { $0.contains("16000 Hz → 48000 Hz") }, "\(tone.notes)")
    }

    func testRW18SizesFFFFFFFFGive4410StereoFrames() throws {
        let path = try realWorldAudio("RW-18_wav_pipe_sizes_0xFFFFFFFF.wav")
        let tone = try ToneLoader.load(path: path, outputRate: 44_100)
        XCTAssertEqual(tone.sourceFrames, 4_410)
        XCTAssertEqual(tone.sourceChannels, 2)
        XCTAssertEqual(tone.samples.count, 4_410)
        XCTAssertEqual(try ToneLoader.load(path: path, outputRate: 48_000).samples.count, 4_800)
        // Average of 440 Hz (left) and 660 Hz (right): both partials present, equal level.
        XCTAssertEqual(Spectrum.amplitude(tone.samples, rate: 44_100, at: 440), 0.25, accuracy: 0.001)
        XCTAssertEqual(Spectrum.amplitude(tone.samples, rate: 44_100, at: 660), 0.25, accuracy: 0.001)
    }

    func testRW20AmbisonicFourChannelsGiveThe1kHzTone() throws {
        let tone = try ToneLoader.load(path: try realWorldAudio("RW-20_amb_extensible_pcm24_4ch_mask0_ambisonicB.wav"), outputRate: 48_000)
        XCTAssertEqual(tone.sourceChannels, 4)
        XCTAssertEqual(tone.sourceFrames, 480)
        XCTAssertEqual(tone.samples.count, 480)
        XCTAssertEqual(Spectrum.peakFrequency(tone.samples, rate: 48_000), 1_000, accuracy: 5)
        // (W + X + Y + 0) / 4 with W = 0.5 sin, X = 0.25 sin, Y = 0.25 cos: amplitude ≈ 0.198.
        XCTAssertEqual(tone.samples.map(abs).max()!, 0.198, accuracy: 0.01)
        XCTAssertTrue(tone.notes.contains("4-channel file mixed down to mono (average of 4 channels)"), "\(tone.notes)")
    }

    func testRW21UnsignedEightBitSilenceIsExactlyZero() throws {
        let tone = try ToneLoader.load(path: try realWorldAudio("RW-21_wav_pcm8_unsigned_mono.wav"), outputRate: 8_000)
        XCTAssertEqual(tone.samples.count, 800)
        // As read (the DC the loader removed put back): 0x80 is exactly 0.
        let read = withDC(tone)
        XCTAssertEqual(Array(read[0..<200]), [Float](repeating: 0, count: 200))
        XCTAssertEqual(Array(read[600..<800]), [Float](repeating: 0, count: 200))
        XCTAssertEqual(read[250], -1.0, accuracy: 1e-7)
        XCTAssertEqual(read[251], 127.0 / 128.0, accuracy: 1e-7)
        // The file's own DC (−51.8 dBFS) is removed.
        XCTAssertEqual(tone.removedDC[0], -0.002578, accuracy: 1e-6)
        XCTAssertEqual(Double(tone.samples.reduce(0, +)) / 800, 0, accuracy: 1e-7, "no DC offset")
    }

    func testRW23MuLawNineFrames() throws {
        let path = try realWorldAudio("RW-23_wav_mulaw_9_samples_odd_data_size.wav")
        let tone = try ToneLoader.load(path: path, outputRate: 8_000)
        XCTAssertEqual(tone.samples.count, 9)
        XCTAssertEqual(withDC(tone).first, 0)
        XCTAssertEqual(withDC(tone).last, 0, "the pad byte is not a sample")
        XCTAssertEqual(try ToneLoader.load(path: path, outputRate: 48_000).samples.count, 54)
    }

    func testRW24CAFChunkAfterDataIsNotAudio() throws {
        let path = try realWorldAudio("RW-24_caf_lpcm16_chunk_after_data.caf")
        let tone = try ToneLoader.load(path: path, outputRate: 44_100)
        XCTAssertEqual(tone.samples.count, 441)
        // Every frame, the last ones included, is the 441 Hz sine (no `info` chunk bytes).
        let expected = sine(frequency: 441, rate: 44_100, frames: 441)
        let read = withDC(tone)
        for i in 0..<441 { XCTAssertEqual(read[i], expected[i], accuracy: 1.0 / 32_768 + 1e-6, "frame \(i)") }
        // The loop end: the wrap step is the sine's own (its value at frame 441 vs frame 0), no larger.
        XCTAssertLessThanOrEqual(abs(tone.samples[440] - tone.samples[0]), 0.30)
        let resampled = try ToneLoader.load(path: path, outputRate: 48_000)
        XCTAssertEqual(resampled.samples.count, 480)
        XCTAssertLessThan(resampled.samples.map(abs).max()!, 0.56)
    }

    func testRW26SSNDBeforeCOMMLoadsTheSine() throws {
        let tone = try ToneLoader.load(path: try realWorldAudio("RW-26_aiff_pcm16_SSND_before_COMM.aiff"), outputRate: 44_100)
        XCTAssertEqual(tone.samples.count, 4_410)
        let expected = sine(frequency: 441, rate: 44_100, frames: 4_410)
        let worst = zip(withDC(tone), expected).map { abs($0 - $1) }.max()!
        XCTAssertLessThanOrEqual(worst, 1.0 / 32_768 + 1e-6)
    }

    func testRW27SowtStereoCancellingChannelsTakesChannel0() throws {
        let tone = try ToneLoader.load(path: try realWorldAudio("RW-27_aifc_sowt_pcm16le_stereo.aifc"), outputRate: 44_100)
        XCTAssertEqual(tone.sourceChannels, 2)
        XCTAssertEqual(tone.samples.count, 4_410)
        XCTAssertEqual(withDC(tone)[1], 0.0314, accuracy: 0.0001)
        XCTAssertEqual(withDC(tone)[2], 0.0627, accuracy: 0.0001)
        let expected = sine(frequency: 441, rate: 44_100, frames: 4_410)
        let worst = zip(withDC(tone), expected).map { abs($0 - $1) }.max()!
        XCTAssertLessThanOrEqual(worst, 1.0 / 32_768 + 1e-6, "byte order right: the sine, not noise")
        // A stereo file plays as stereo: no note of a mix-down (its mono mix is only for
        // finding the root), though its channels cancel when averaged.
        XCTAssertEqual(tone.channels.count, 2)
        XCTAssertFalse(tone.notes.contains { $0.contains("cancel") || $0.contains("mixed down") }, "\(tone.notes)")
    }

    func testRW29ZeroChannelsIsAnErrorNamingTheFile() throws {
        let path = try realWorldAudio("RW-29_wav_pcm16_zero_channels.wav")
        XCTAssertThrowsError(try ToneLoader.load(path: path, outputRate: 48_000)) { error in
            XCTAssertEqual("\(error)", "tone file '\(path)': libsndfile: Channel count is zero.")
        }
    }

    func testTextFileAndMissingFileGiveErrorsNamingTheFile() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let text = dir + "/notes.wav"
        try "this is not audio\n".write(toFile: text, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ToneLoader.load(path: text, outputRate: 48_000)) { error in
            XCTAssertTrue("\(error)".hasPrefix("tone file '\(text)': libsndfile: "), "\(error)")
        }
        let missing = dir + "/missing.wav"
        XCTAssertThrowsError(try ToneLoader.load(path: missing, outputRate: 48_000)) { error in
            // In the project's words, not libsndfile's "System error : No such file or directory." (issue 38).
            XCTAssertTrue("\(error)".hasPrefix("tone file '\(missing)': no such file; expected a sound file"), "\(error)")
        }
    }

    func testEmptyAndNonFiniteFilesAreErrors() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let empty = dir + "/empty.wav"
        writeSoundFile(empty, [], rate: 48_000)
        XCTAssertThrowsError(try ToneLoader.load(path: empty, outputRate: 48_000)) { error in
            XCTAssertEqual("\(error)", "tone file '\(empty)': holds no audio frames")
        }
        let nan = dir + "/nan.wav"
        writeSoundFile(nan, [0, 0.5, .nan, 0.5, 0, .infinity], rate: 48_000, channels: 2)
        XCTAssertThrowsError(try ToneLoader.load(path: nan, outputRate: 48_000)) { error in
            XCTAssertEqual("\(error)", "tone file '\(nan)': sample at frame 1, channel 0 is nan; expected finite samples")
        }
    }

    func testResampled44100Sine440KeepsItsPitchAndLoopsWithoutClick() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 0.5 s of 441 Hz at 44.1 kHz is 220.5 cycles; 440 Hz over 22 050 frames is
        // 220 cycles: a whole-cycle loop whose resampled length is 24 000 frames.
        let path = dir + "/sine440.wav"
        writeSoundFile(path, sine(frequency: 440, rate: 44_100, frames: 22_050), rate: 44_100,
                       format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_24))
        let tone = try ToneLoader.load(path: path, outputRate: 48_000)
        XCTAssertEqual(tone.samples.count, 24_000)
        XCTAssertEqual(Spectrum.peakFrequency(tone.samples, rate: 48_000), 440, accuracy: 440 * 0.001)
        // Against the ideal 440 Hz sine at 48 kHz, in phase: the loop is time-aligned.
        let ideal = sine(frequency: 440, rate: 48_000, frames: 24_000)
        let worst = zip(tone.samples, ideal).map { abs($0 - $1) }.max()!
        XCTAssertLessThan(worst, 0.0001, "time-aligned to within 0.0001 of full scale")
        // The seam: wrap step no larger than the steps inside.
        XCTAssertLessThanOrEqual(largestStep(tone.samples, wrapping: true), largestStep(tone.samples) * 1.001)
    }
}
