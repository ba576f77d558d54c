// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendEngine
import BendTestSupport
import CSndFile
import Foundation
import XCTest

/// Writes `samples` (mono) with an instrument chunk (libsndfile's SFC_SET_INSTRUMENT:
/// WAV `smpl`, AIFF `INST`/`MARK`): base note, detune (cents), and one loop when given.
func writeInstrumentFile(_ path: String, _ samples: [Float], rate: Int, format: Int32 = Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT),
                         note: Int8, detune: Int8 = 0, loop: (start: Int, end: Int, mode: Int32)? = nil) {
    var info = SF_INFO()
    info.samplerate = Int32(rate)
    info.channels = 1
    info.format = format
    guard let file = sf_open(path, Int32(SFM_WRITE), &info) else { fatalError(String(cString: sf_strerror(nil))) }
    var instrument = SF_INSTRUMENT()
    instrument.gain = 1
    instrument.basenote = note
    instrument.detune = detune
    instrument.velocity_hi = 127
    instrument.key_hi = 127
    if let loop {
        instrument.loop_count = 1
        csndfile_set_instrument_loop(&instrument, 0, csndfile_loop(mode: loop.mode, start: UInt32(loop.start), end: UInt32(loop.end), count: 0))
    }
    precondition(sf_command(file, Int32(SFC_SET_INSTRUMENT), &instrument, Int32(MemoryLayout<SF_INSTRUMENT>.size)) == Int32(SF_TRUE))
    _ = samples.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, sf_count_t(samples.count)) }
    sf_close(file)
}

/// What `LoadedTone` keeps of the file: its channels, its sustain loop (converted to
/// the output rate, seamless), its root; measured against the ideal signal.
final class LoadedToneTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func testStereoFileKeepsBothChannelsAndPlaysTheirMix() throws {
        let path = dir + "/stereo.wav"
        let left = sine(frequency: 440, rate: 48_000, frames: 4_800), right = sine(frequency: 660, rate: 48_000, frames: 4_800)
        writeSoundFile(path, zip(left, right).flatMap { [$0, $1] }, rate: 48_000, channels: 2)
        for rate in [48_000.0, 44_100] {
            let tone = try ToneLoader.load(path: path, outputRate: rate)
            XCTAssertEqual(tone.channels.count, 2)
            XCTAssertEqual(tone.frames, Int(rate / 10))
            XCTAssertEqual(Spectrum.amplitude(tone.channels[0], rate: rate, at: 440), 0.5, accuracy: 0.001)
            XCTAssertEqual(Spectrum.amplitude(tone.channels[0], rate: rate, at: 660), 0, accuracy: 0.001)
            XCTAssertEqual(Spectrum.amplitude(tone.channels[1], rate: rate, at: 660), 0.5, accuracy: 0.001)
            // The engine's mono: the average, as before.
            XCTAssertEqual(Spectrum.amplitude(tone.samples, rate: rate, at: 440), 0.25, accuracy: 0.001)
            XCTAssertEqual(Spectrum.amplitude(tone.samples, rate: rate, at: 660), 0.25, accuracy: 0.001)
            XCTAssertFalse(tone.loop.fromFile)
            XCTAssertEqual(tone.loop.start, 0)
            XCTAssertEqual(tone.loop.end, tone.frames)
        }
    }

    /// A WAV with a `smpl` chunk: 0.2 s attack (1 kHz), a 0.2 s loop of 500 Hz (100
    /// whole cycles) and a 0.1 s tail; note 60, pitch fraction 37 cents. At 48 kHz the
    /// loop is the file's frames; at 44.1 kHz it is 8 820 frames from frame 8 820, and
    /// every frame of it is the ideal 500 Hz sine at 44.1 kHz (within 10⁻⁴: aligned, and
    /// the seam is the sine's own step).
    func testWAVLoopAndRootAreKeptAndTheLoopConvertsSeamlessly() throws {
        let path = dir + "/looped.wav"
        var x = sine(frequency: 1_000, rate: 48_000, frames: 9_600, amplitude: 0.3)
        x += sine(frequency: 500, rate: 48_000, frames: 9_600)
        x += sine(frequency: 500, rate: 48_000, frames: 4_800).enumerated().map { $1 * Float(1 - Double($0) / 4_800) }
        writeInstrumentFile(path, x, rate: 48_000, note: 60, detune: 37, loop: (9_600, 19_200, Int32(SF_LOOP_FORWARD)))
        let native = try ToneLoader.load(path: path, outputRate: 48_000)
        XCTAssertEqual(native.loop, ToneLoop(start: 9_600, end: 19_200, mode: .forward, fromFile: true, sourceStart: 9_600, sourceEnd: 19_200))
        XCTAssertEqual(native.root, ToneRoot(note: 60.37, origin: .file))
        XCTAssertEqual(native.channels, [x])
        // The engine still loops the whole file (its own mean, the fading tail's, taken out).
        let mean = Float(x.reduce(0.0) { $0 + Double($1) } / Double(x.count))
        XCTAssertEqual(native.samples, x.map { $0 - mean }, "the engine still loops the whole file")

        let tone = try ToneLoader.load(path: path, outputRate: 44_100)
        XCTAssertEqual(tone.loop.start, 8_820)
        XCTAssertEqual(tone.loop.end, 17_640)
        XCTAssertEqual(tone.loop.repetitions, 1)
        XCTAssertEqual(tone.frames, 8_820 + 8_820 + 4_410)
        XCTAssertEqual(tone.samples.count, 22_050)
        let loop = Array(tone.channels[0][tone.loop.start..<tone.loop.end])
        let ideal = sine(frequency: 500, rate: 44_100, frames: 8_820)
        XCTAssertLessThan(zip(loop, ideal).map { abs($0 - $1) }.max()!, 1e-4)
        // The attack ends in the 1 kHz sine, the tail begins as the 500 Hz one.
        let attack = Array(tone.channels[0][4_410..<8_410])
        XCTAssertEqual(Spectrum.amplitude(attack, rate: 44_100, at: 1_000), 0.3, accuracy: 0.01)
        XCTAssertEqual(tone.channels[0][17_640], ideal[0], accuracy: 0.001)
    }

    /// A loop whose length is not a whole number of output frames: 9 599 frames of
    /// 100 cycles are 8 819.08 frames at 44.1 kHz; the loop is repeated k times so that
    /// k·8 819.08 is within 0.01 cent of a whole number, and holds 100·k cycles of the
    /// sine exactly (to 10⁻⁴) in its frames.
    func testAwkwardLoopIsRepeatedUntilWhole() throws {
        let path = dir + "/awkward.wav"
        let loopHz = 100 * 48_000 / 9_599.0
        let x = sine(frequency: loopHz, rate: 48_000, frames: 9_599 + 4_000)
        writeInstrumentFile(path, x, rate: 48_000, note: 69, loop: (0, 9_599, Int32(SF_LOOP_FORWARD)))
        let tone = try ToneLoader.load(path: path, outputRate: 44_100)
        let k = tone.loop.repetitions
        XCTAssertGreaterThan(k, 1)
        XCTAssertEqual(tone.loop.start, 0)
        let m = tone.loop.end
        XCTAssertEqual(Double(m), Double(k) * 9_599 * 0.918_75, accuracy: 0.5)
        XCTAssertLessThanOrEqual(abs(tone.loop.pitchErrorCents), 0.01)
        let loop = tone.channels[0][0..<m]
        let worst = loop.enumerated().map { abs(Double($1) - 0.5 * sin(2 * Double.pi * Double(100 * k * $0) / Double(m))) }.max()!
        XCTAssertLessThan(worst, 1e-4, "k \(k), \(m) frames")
    }

    /// An alternating loop turns on a frame at both ends: a half-cosine loop (its
    /// ping-pong is a cosine) of 1 001 frames converts to round(1 000 · 0.91875) + 1 =
    /// 920 frames at 44.1 kHz that are the half-cosine there; the stretch is reported.
    func testAlternatingLoopTurnsOnFrames() throws {
        let path = dir + "/pingpong.wav"
        let x = (0..<1_001).map { Float(0.5 * cos(Double.pi * 3 * Double($0) / 1_000)) }
        writeInstrumentFile(path, x, rate: 48_000, note: 69, loop: (0, 1_001, Int32(SF_LOOP_ALTERNATING)))
        let tone = try ToneLoader.load(path: path, outputRate: 44_100)
        XCTAssertEqual(tone.loop.mode, .alternating)
        XCTAssertEqual(tone.loop.end - tone.loop.start, 920)
        XCTAssertEqual(tone.loop.pitchErrorCents, 1200 * log2(918.75 / 919), accuracy: 1e-9)
        XCTAssertTrue(tone.notes.contains { $0.contains("pitch moves by −0.47 cents") }, "\(tone.notes)")
        let worst = (0..<920).map { abs(Double(tone.channels[0][$0]) - 0.5 * cos(Double.pi * 3 * Double($0) / 919)) }.max()!
        XCTAssertLessThan(worst, 1e-4)
    }

    /// AIFF `INST`'s detune is what a player adds: base note 60, detune +20 cents is a
    /// sample that sounds at 59.8. (libsndfile 1.2 writes no `INST` chunk: the test
    /// appends one, 20 bytes, to an AIFF libsndfile wrote.)
    func testAIFFDetuneIsThePlayersCorrection() throws {
        let path = dir + "/inst.aiff"
        writeSoundFile(path, sine(frequency: 440, rate: 48_000, frames: 4_800), rate: 48_000, format: Int32(SF_FORMAT_AIFF | SF_FORMAT_PCM_16))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // INST: base note, detune, low/high note, low/high velocity, gain (16-bit), two
        // loops of (play mode, begin marker, end marker), all 0 here (no loop).
        bytes += Array("INST".utf8) + [0, 0, 0, 20, 60, 20, 0, 127, 1, 127] + [UInt8](repeating: 0, count: 14)
        let size = UInt32(bytes.count - 8)
        bytes.replaceSubrange(4..<8, with: [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)])
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let tone = try ToneLoader.load(path: path, outputRate: 48_000)
        XCTAssertEqual(tone.root?.origin, .file)
        XCTAssertEqual(tone.root?.note ?? 0, 59.8, accuracy: 1e-9)
    }

    /// Without a root in the file: YIN finds 330 Hz in a 330 Hz tone (E4 + 1.96 cents,
    /// within 0.01 cent) and 440 Hz in the default tone; noise has no root.
    func testRootIsDetectedWhenTheFileNamesNone() throws {
        let path = dir + "/e330.wav"
        writeSoundFile(path, Measure.harmonicTone(frames: 48_000, cycles: 330), rate: 48_000)
        let tone = try ToneLoader.load(path: path, outputRate: 44_100)
        XCTAssertEqual(tone.root?.origin, .detected)
        XCTAssertEqual(tone.root?.hz ?? 0, 330, accuracy: 330 * 0.01 / 1200)
        XCTAssertEqual(tone.root?.note ?? 0, 64.0196, accuracy: 0.0001)
        let asset = try ToneLoader.load(path: defaultTonePath, outputRate: 48_000)
        XCTAssertEqual(asset.root?.hz ?? 0, 440, accuracy: 440 * 0.01 / 1200)
        XCTAssertNil(try ToneLoader.load(path: defaultTonePath, outputRate: 48_000, findRoot: false).root)
        var random = SplitMix(seed: 7)
        let noise = (0..<48_000).map { _ in Float(Double(random.next() >> 11) / Double(1 << 53) - 0.5) }
        writeSoundFile(dir + "/noise.wav", noise, rate: 48_000)
        XCTAssertNil(try ToneLoader.load(path: dir + "/noise.wav", outputRate: 48_000).root)
    }

    /// YIN on harder tones: a high partial (220 + 440 + 3 300 Hz, whose ripple in d′
    /// dipped below the threshold at 207 frames on the way to the period's 218: 231.9 Hz
    /// was found) and a second harmonic louder than the fundamental: the fundamental.
    func testPitchDetectorFindsTheFundamental() {
        func tone(_ partials: [(hz: Double, amplitude: Double)]) -> [Float] {
            (0..<48_000).map { i in Float(partials.reduce(0.0) { $0 + $1.amplitude * sin(2 * Double.pi * $1.hz * Double(i) / 48_000) }) }
        }
        XCTAssertEqual(PitchDetector.pitch(tone([(220, 0.5), (440, 0.25), (3_300, 0.1)]), rate: 48_000) ?? 0, 220, accuracy: 1e-9)
        XCTAssertEqual(PitchDetector.pitch(tone([(150, 0.2), (300, 0.6), (450, 0.2)]), rate: 48_000) ?? 0, 150, accuracy: 1e-9)
        XCTAssertEqual(PitchDetector.pitch(tone([(1_000, 0.5)]), rate: 44_100) ?? 0, 1_000 * 44_100 / 48_000, accuracy: 0.01)
    }

    /// A loop outside the file is not trusted: the whole file loops, and a note says so.
    func testLoopOutsideTheFileLoopsTheWholeFile() throws {
        let path = dir + "/outside.wav"
        writeInstrumentFile(path, sine(frequency: 440, rate: 48_000, frames: 4_800), rate: 48_000, note: 69,
                            loop: (1_000, 9_000, Int32(SF_LOOP_FORWARD)))
        let tone = try ToneLoader.load(path: path, outputRate: 48_000)
        XCTAssertFalse(tone.loop.fromFile)
        XCTAssertEqual(tone.loop.end, 4_800)
        XCTAssertTrue(tone.notes.contains { $0.contains("not inside its 4800 frames") }, "\(tone.notes)")
    }

    /// `-t DIR`: the tone path is a folder, said so (not libsndfile's "Format not
    /// recognised.").
    func testAFolderIsAFolder() throws {
        XCTAssertThrowsError(try ToneLoader.load(path: dir, outputRate: 48_000)) { error in
            XCTAssertEqual("\(error)", "tone file '\(dir)': is a folder; expected a sound file (WAV, AIFF, CAF, FLAC, Ogg, …)")
        }
    }

    /// A FIFO as the tone (or as an SFZ region's sample) is refused at once: read, it would
    /// never end (a render hung on one).
    func testAFIFOIsRefused() throws {
        let fifo = dir + "/fifo.wav"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertThrowsError(try ToneLoader.load(path: fifo, outputRate: 48_000)) { error in
            XCTAssertEqual("\(error)", "tone file '\(fifo)': is not a regular file (a device, a FIFO or a socket); expected a sound file (WAV, AIFF, CAF, FLAC, Ogg, …)")
        }
    }
}

/// Issue 29 item 10: a tone with DC (0.9 plus a 440 Hz sine) plays without it: the
/// loader takes the loop's mean out (a note says so), and a rendered note's DC, over
/// whole periods of the loop, is ≤ −90 dBFS (−5.9 dBFS before).
final class ToneDCTests: XCTestCase {
    func testDCIsRemovedAtLoadAndARenderHasNone() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/dc.wav"
        writeSoundFile(path, sine(frequency: 440, rate: 48_000, frames: 48_000, amplitude: 0.05).map { $0 + 0.9 }, rate: 48_000)
        for rate in [48_000.0, 44_100] {
            let tone = try ToneLoader.load(path: path, outputRate: rate)
            XCTAssertEqual(tone.removedDC[0], 0.9, accuracy: 1e-6)
            XCTAssertTrue(tone.notes.contains("removed a DC offset of −0.9 dBFS (the loop's mean)"), "\(tone.notes)")
            let h = RenderHarness(voices: 4, period: 256, rate: rate, tone: tone.samples, levels: try ToneLevelMaker.make(tone.samples, path: path)) {
                $0.interpolation = .bandLimited
            }
            defer { h.free() }
            let n = Int(rate)
            let out = h.render(frames: 2_048 + 2 * n, events: [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 1)])
            let left = Measure.channel(out, 0)[2_048..<(2_048 + 2 * n)]  // two whole loops
            let dc = left.reduce(0.0) { $0 + Double($1) } / Double(left.count)
            let level = Measure.rms(left)
            print(String(format: "DC at %.0f Hz: %.1f dBFS (the tone %.1f dBFS RMS)", rate, Measure.dB(abs(dc) + 1e-20), Measure.dB(level)))
            XCTAssertLessThanOrEqual(Measure.dB(abs(dc)), -90)
            XCTAssertGreaterThan(Measure.dB(level), -40, "the tone itself plays")
        }
    }
}
