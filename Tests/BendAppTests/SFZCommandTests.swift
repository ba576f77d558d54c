// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// `--tone FILE.sfz` on the command line: an instrument renders at the pitches its zones
/// give, what it holds that is not played is listed, and every malformed kind is exit 2
/// naming the file and line, with no output file.
final class SFZCommandTests: XCTestCase {
    var dir = URL(fileURLWithPath: "/")
    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// A 1 s loop of a sine of `hz`, float WAV at 48 kHz.
    func writeSine(_ name: String, hz: Int) {
        writeSoundFile(path(name), Measure.sineTone(frames: 48_000, cycles: hz), rate: 48_000)
    }

    func testAnInstrumentRendersItsZonesAndListsWhatItDoesNotPlay() throws {
        writeSine("low.wav", hz: 200)
        writeSine("high.wav", hz: 800)
        try """
        <global> loop_mode=loop_continuous fil_type=lpf_2p
        <region> sample=low.wav hikey=59 pitch_keycenter=55
        <region> sample=high.wav lokey=60 pitch_keycenter=72 amp_veltrack=0
        """.write(toFile: path("i.sfz"), atomically: true, encoding: .utf8)
        // Ratio 1 is key 60 (C4, played by the high zone); ratio 0.5 is key 48 (the low zone).
        try """
        {"t": 0.0, "type": "down", "id": 1, "ratio": 0.5, "gain": 0.5, "y": 0.5}
        {"t": 0.5, "type": "up", "id": 1}
        {"t": 0.6, "type": "down", "id": 2, "ratio": 1, "gain": 0.5, "y": 0.5}
        {"t": 1.1, "type": "up", "id": 2}
        """.write(toFile: path("s.jsonl"), atomically: true, encoding: .utf8)
        let r = try BinaryRunner.run(["render", path("s.jsonl"), "-o", path("out.wav"), "--tone", path("i.sfz")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("ratio 1 (the tone note) is key 60"), r.stderr)
        XCTAssertTrue(r.stderr.contains("not played, ignored: fil_type (line 1), amp_veltrack (line 3)"), r.stderr)
        let left = Measure.channel(try WAVReader.read(path("out.wav")).samples, 0)
        XCTAssertEqual(Measure.peakFrequency(Array(left[2400..<21_600]), rate: 48_000), 200 * pow(2, -7.0 / 12), accuracy: 1, "key 48 on the low zone (keycenter 55)")
        XCTAssertEqual(Measure.peakFrequency(Array(left[31_200..<50_400]), rate: 48_000), 800 * pow(2, -12.0 / 12), accuracy: 1, "key 60 on the high zone (keycenter 72)")
    }

    /// A region's own long release (`ampeg_release=2`) is rendered whole: the render waits
    /// for it (it was cut 1 s after the touch, at −16 dBFS), fading smoothly to silence.
    func testARegionsLongReleaseIsRenderedWhole() throws {
        writeSine("a.wav", hz: 440)
        try "<region> sample=a.wav pitch_keycenter=60 loop_mode=loop_continuous ampeg_release=2\n"
            .write(toFile: path("i.sfz"), atomically: true, encoding: .utf8)
        try "{\"t\": 0.0, \"type\": \"down\", \"id\": 1, \"ratio\": 1, \"gain\": 0.5, \"y\": 0.5}\n{\"t\": 0.5, \"type\": \"up\", \"id\": 1}\n"
            .write(toFile: path("s.jsonl"), atomically: true, encoding: .utf8)
        let r = try BinaryRunner.run(["render", path("s.jsonl"), "-o", path("out.wav"), "--tone", path("i.sfz"), "--limiter", "off"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let left = Measure.channel(try WAVReader.read(path("out.wav")).samples, 0)
        XCTAssertGreaterThanOrEqual(left.count, Int(2.5 * 48_000), "the render lasts the release")
        let held = Measure.rms(left[12_000..<24_000])
        XCTAssertEqual(Measure.dB(Measure.rms(left[(72_000 - 2400)..<(72_000 + 2400)]) / held), 20 * log10(0.5), accuracy: 1,
                       "halfway through the release (smoothstep: half the level)")
        XCTAssertLessThan(Measure.rms(left[(120_000 - 1)...]), 1e-5, "silent at its end")
    }

    func testEveryMalformedInstrumentIsExitTwoWithFileAndLineAndNoOutput() throws {
        writeSine("a.wav", hz: 440)
        try #"{"t": 0.0, "type": "down", "id": 1, "x": 0.5, "y": 0.5}"#.write(toFile: path("s.jsonl"), atomically: true, encoding: .utf8)
        try "<region> sample=a.wav\n".write(toFile: path("loop2.sfz"), atomically: true, encoding: .utf8)
        let cases: [(String, String)] = [
            ("<region> sample=a.wav\n<regio\n", "i.sfz:2: unterminated header '<regio'; expected '>' on the same line"),
            ("<region> sample=a.wav lokey=\n", "i.sfz:1: opcode 'lokey' has no value; expected lokey=value"),
            ("<region> sample=gone.wav\n", "i.sfz:1: sample '\(path("gone.wav"))' not found"),
            ("#include \"i.sfz\"\n", "i.sfz:1: #include \"i.sfz\" is an include loop"),
            ("<region> sample=a.wav key=c#11\n", "i.sfz:1: key=c#11: expected a key 0…127 or a note name such as c#4"),
            ("<region> sample=a.wav loop_start=100 loop_end=100\n", "i.sfz:1: <region>: its loop is 1 frame at 48000 Hz; at least 32 are needed"),
            ("<region> sample=a.wav lokey=70 hikey=60\n", "i.sfz:1: no <region> plays: this one has an empty key or velocity range"),
        ]
        for (text, message) in cases {
            try text.write(toFile: path("i.sfz"), atomically: true, encoding: .utf8)
            let r = try BinaryRunner.run(["render", path("s.jsonl"), "-o", path("bad.wav"), "--tone", path("i.sfz")])
            XCTAssertEqual(r.status, 2, "\(text): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(text): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("bad.wav")), text)
        }
    }
}
