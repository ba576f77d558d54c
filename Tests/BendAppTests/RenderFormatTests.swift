// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation
import BendTestSupport

/// `render -o` in every format libsndfile writes here, `-o -` into a pipe, and the
/// progress line on a terminal (tmux) but not in a file.
final class RenderFormatTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// One touch at x = 0.5 (ratio 1: the default tone's 440 Hz) for `seconds`.
    func script(seconds: Double = 1) throws -> String {
        let url = dir.appendingPathComponent("a.jsonl")
        try "{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 1}\n{\"t\": \(seconds), \"type\": \"up\", \"id\": 1}\n"
            .write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func soxi(_ flag: String, _ path: String) throws -> String {
        try BinaryRunner.spawn(["soxi", flag, path]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testEachFormatReadsBackWithItsTypeAndPitch() throws {
        // soxi -t, -e, -b: the container, the encoding and the bits per sample. AIFF with
        // float samples is AIFF-C (libsndfile writes the 'fl32' compression type).
        let cases: [(file: String, format: String?, type: String, encoding: String, bits: String)] = [
            ("a.wav", nil, "wav", "Floating Point PCM", "32"),
            ("b.wav", "s16", "wav", "Signed Integer PCM", "16"),
            ("c.wav", "s24", "wav", "Signed Integer PCM", "24"),
            ("d.wav", "f32", "wav", "Floating Point PCM", "32"),
            ("e.flac", nil, "flac", "FLAC", "24"),
            ("f.flac", "s16", "flac", "FLAC", "16"),
            ("g.ogg", nil, "vorbis", "Vorbis", "0"),
            ("h.aiff", nil, "aifc", "Floating Point PCM", "32"),
            ("i.aif", "s16", "aiff", "Signed Integer PCM", "16"),
            ("j.caf", nil, "caf", "Floating Point PCM", "32"),
            ("k.caf", "s24", "caf", "Signed Integer PCM", "24"),
        ]
        let input = try script()
        for c in cases {
            let out = dir.appendingPathComponent(c.file).path
            let r = try BinaryRunner.run(["render", input, "-o", out] + (c.format.map { ["--format", $0] } ?? []))
            XCTAssertEqual(r.status, 0, "\(c.file): \(r.stderr)")
            XCTAssertEqual(try soxi("-t", out), c.type, c.file)
            XCTAssertEqual(try soxi("-e", out), c.encoding, c.file)
            XCTAssertEqual(try soxi("-b", out), c.bits, c.file)
            XCTAssertEqual(try soxi("-r", out), "48000", c.file)
            XCTAssertEqual(try soxi("-c", out), "2", c.file)
            let wav = try WAVReader.read(out)
            XCTAssertEqual(Measure.peakFrequency(Measure.channel(wav.samples, 0), rate: 48_000), 440, accuracy: 2, c.file)
            XCTAssertGreaterThan(Measure.dB(Measure.rms(wav.samples)), -30, c.file)
        }
    }

    func testBadFormatsAreUsageErrorsAndWriteNothing() throws {
        let input = try script()
        let cases: [([String], String)] = [
            (["-o", "x.mp3"], "x.mp3' from its extension '.mp3'; expected .wav, .flac"),
            (["-o", "x"], "extension '(none)'"),
            (["-o", "x.flac", "--format", "f32"], "FLAC holds integer samples"),
            (["-o", "x.ogg", "--format", "s16"], "Ogg Vorbis is compressed"),
            (["-o", "x.wav", "--format", "u8"], "option '--format': expected s16, s24 or f32, got 'u8'"),
        ]
        for (args, message) in cases {
            let r = try BinaryRunner.run(["render", input] + args.map { $0.hasPrefix("x") ? dir.appendingPathComponent($0).path : $0 })
            XCTAssertEqual(r.status, 2, "\(args)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["a.jsonl"])
    }

    /// `-o -` writes WAV into a pipe: sox reads it; the samples are the file render's.
    func testStandardOutputIsAWAVForPipes() throws {
        let input = try script()
        let bin = BinaryRunner.executable.path
        let stat = try BinaryRunner.spawn(["sh", "-c", "'\(bin)' render '\(input)' -o - 2>/dev/null | sox -t wav - -n stat 2>&1"])
        XCTAssertEqual(stat.status, 0, stat.output)
        let length = try XCTUnwrap(stat.output.split(separator: "\n").first { $0.hasPrefix("Length (seconds)") })
        let seconds = try XCTUnwrap(Double(length.split(separator: " ").last ?? ""))
        XCTAssertEqual(seconds, 1.0, accuracy: 0.2, stat.output)
        let piped = dir.appendingPathComponent("piped.wav").path, file = dir.appendingPathComponent("file.wav").path
        XCTAssertEqual(try BinaryRunner.spawn(["sh", "-c", "'\(bin)' render '\(input)' -o - --format s16 | cat > '\(piped)'"]).status, 0)
        XCTAssertEqual(try BinaryRunner.run(["render", input, "-o", file, "--format", "s16"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: piped)), try Data(contentsOf: URL(fileURLWithPath: file)), "byte for byte")
        XCTAssertEqual(try soxi("-b", piped), "16")
    }

    /// On a terminal a progress line is drawn and redrawn; in a file there is none.
    func testProgressLineOnATerminalOnly() throws {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let input = try script(seconds: 8)
        let bin = BinaryRunner.executable.path
        let out = dir.appendingPathComponent("out.wav").path
        let tmux = Tmux("bendsynth-progress")
        try tmux(["new-session", "-d", "-s", "r", "-x", "120", "-y", "10",
                  "sh -c \"'\(bin)' render '\(input)' -o '\(out)'; tmux -L \(tmux.socket) wait-for -S done; sleep 60\""])
        defer { try? tmux(["kill-server"]) }
        var seen = Set<String>()
        try waitUntil("the progress line to pass 0 %") {
            let line = try tmux.screen("r").split(separator: "\n").first.map(String.init) ?? ""
            if line.hasPrefix("render:") { seen.insert(line) }
            return line.hasPrefix("render:") && !line.hasPrefix("render:   0%")
        }
        try tmux(["wait-for", "done"])
        let screen = try tmux.screen("r")
        let line = try XCTUnwrap(seen.first { !$0.hasPrefix("render:   0%") })
        XCTAssertNotNil(line.range(of: #"^render: +\d+% — \d+\.\d× real time — \d+ s left$"#, options: .regularExpression), line)
        XCTAssertTrue(screen.hasPrefix("wrote \(out)"), "the progress line is cleared and the summary takes its place: \(screen)")
        XCTAssertFalse(screen.contains("render:"), screen)

        // Standard error to a file: the summary only.
        let err = dir.appendingPathComponent("err.txt").path
        XCTAssertEqual(try BinaryRunner.spawn(["sh", "-c", "'\(bin)' render '\(input)' -o '\(out)' 2>'\(err)'"]).status, 0)
        let text = try String(contentsOfFile: err, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("wrote "), text)
        XCTAssertFalse(text.contains("%") || text.contains("\r") || text.contains("real time"), text)
    }
}
