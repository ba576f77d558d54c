// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import Glibc
import XCTest

/// Issue 16: `play`'s take. The touch script (`--record-touches`) is on the WAV's time
/// base and holds exactly what was played, so rendering it gives the WAV again; a
/// recording never replaces a file unless asked; no command writes over its input.
final class TakeFilesTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }
    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    func script(_ name: String, _ lines: [String]) throws -> String {
        try (lines.joined(separator: "\n") + "\n").write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    /// The script's lines as (t, type, id).
    func events(_ file: String) throws -> [(t: Double, type: String, id: Int?)] {
        try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map { line in
            let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (try XCTUnwrap(o["t"] as? Double), try XCTUnwrap(o["type"] as? String), o["id"] as? Int)
        }
    }

    /// Left channel of a WAV, and the frame of its first non-zero sample.
    func onset(_ wav: String) throws -> (left: [Float], first: Int) {
        let left = try WAVReader.read(wav).samples.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        return (left, try XCTUnwrap(left.firstIndex { $0 != 0 }, "\(wav) is silent"))
    }

    /// Largest sample difference between two takes over the first `frames` frames.
    func difference(_ a: [Float], _ b: [Float], frames: Int) -> Float {
        (0..<frames).map { abs(a[$0] - b[$0]) }.max() ?? 0
    }

    /// A touch at 0.5 s: the take's touch script says 0.5 s (not 0: the start of the
    /// recording, not the first touch), the WAV's sound starts on that frame, and the
    /// script rendered again is the WAV sample for sample.
    /// x and y with more digits than 6 decimals (a mouse or phone position): the take
    /// writes them exactly (the shortest text of the same Double), so it renders again
    /// sample for sample (6 decimals drifted by −46.8 dB, 9 significant digits by −90 dB).
    func testATakeOfFineXRendersAgainToTheSameFrames() throws {
        let s = try script("fine.jsonl", [#"{"t": 0.1, "type": "down", "id": 1, "x": 0.123456789123, "y": 0.876543219}"#,
                                          #"{"t": 0.3, "type": "move", "id": 1, "x": 0.6234567891234, "y": 0.7111111119}"#,
                                          #"{"t": 0.6, "type": "up", "id": 1}"#])
        let played = try BinaryRunner.run(["play", "--no-config", "--no-terminal", "--script", s, "-d", "null", "--interp", "cubic", "--round", "off",
                                           "--record", path("fine.wav"), "--record-touches", path("fine-take.jsonl")])
        XCTAssertEqual(played.status, 0, played.stderr)
        XCTAssertTrue(try String(contentsOfFile: path("fine-take.jsonl"), encoding: .utf8).contains("\"x\": 0.123456789123,"))
        let rendered = try BinaryRunner.run(["render", "--no-config", path("fine-take.jsonl"), "-o", path("fine-again.wav"), "--interp", "cubic", "--round", "off"])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        let wav = try onset(path("fine.wav")), again = try onset(path("fine-again.wav"))
        let frames = min(again.left.count, wav.left.count)
        let diff = difference(again.left, wav.left, frames: frames)
        print("fine take: re-rendered vs WAV over \(frames) frames: largest difference \(diff) (\(20 * log10(Double(diff))) dB)")
        XCTAssertLessThan(diff, 1e-6, "sample for sample")
    }

    /// With a reverb, play's stop fades its tail out over 0.3 s instead of cutting it:
    /// the take's last 10 ms are 40 dB below the tail when the voice had ended.
    func testPlaysStopFadesTheReverbsTail() throws {
        let s = try script("wet.jsonl", [#"{"t": 0.1, "type": "down", "id": 1, "x": 0.5, "y": 1}"#,
                                         #"{"t": 0.5, "type": "up", "id": 1}"#])
        let played = try BinaryRunner.run(["play", "--no-config", "--no-terminal", "--script", s, "-d", "null",
                                           "--reverb-send", "0.8", "--reverb-decay", "6", "--record", path("wet.wav")])
        XCTAssertEqual(played.status, 0, played.stderr)
        let signed = Measure.channel(try WAVReader.read(path("wet.wav")).samples, 0), left = signed.map { abs($0) }
        let tail = left[(Int(0.55 * 48_000))..<(Int(0.6 * 48_000))].max()!, end = left[(left.count - 480)...].max()!
        print("play's stop with a 6 s reverb: tail \(20 * log10(tail)) dBFS after the voice, the take's last 10 ms \(20 * log10(max(end, 1e-12))) dBFS (\(left.count) frames)")
        XCTAssertGreaterThan(20 * log10(tail), -40, "the reverb rings after the voice")
        XCTAssertLessThan(20 * log10(max(end, 1e-12)) - 20 * log10(tail), -40, "the stop faded it out")
        XCTAssertLessThanOrEqual(Measure.maxStep(signed[(signed.count - 14_400)...]), Measure.maxStep(signed[(Int(0.55 * 48_000))..<(Int(0.6 * 48_000))]) * 1.01,
                                 "the fade adds no step")
    }

    func testTouchScriptIsOnTheWAVsTimeBase() throws {
        let s = try script("s.jsonl", [#"{"t": 0.5, "type": "down", "id": 1, "x": 0.5, "y": 1}"#,
                                       #"{"t": 0.75, "type": "move", "id": 1, "x": 0.625, "y": 1}"#,
                                       #"{"t": 1.0, "type": "up", "id": 1}"#])
        let played = try BinaryRunner.run(["play", "--no-config", "--no-terminal", "--script", s, "-d", "null", "--interp", "cubic", "--round", "off",
                                           "--record", path("take.wav"), "--record-touches", path("take.jsonl")])
        XCTAssertEqual(played.status, 0, played.stderr)
        let take = try events(path("take.jsonl"))
        XCTAssertEqual(take.map(\.type), ["down", "move", "up", "end"])
        let takeFrames = try WAVReader.read(path("take.wav")).samples.count / 2
        XCTAssertEqual(take.last!.t * 48_000, Double(takeFrames), accuracy: 0.5, "the end line is the take's length: the WAV's frames")
        let first = try XCTUnwrap(take.first).t
        let wav = try onset(path("take.wav"))
        let scriptFrame = Int((first * 48_000).rounded())
        print("take: touch script's first event at frame \(scriptFrame) (\(first) s); the WAV's sound starts at frame \(wav.first): \(wav.first - scriptFrame) frames apart")
        XCTAssertEqual(first, 0.5, accuracy: 0.5 / 48_000, "the script's time base is the recording's start")
        XCTAssertEqual(wav.first, 24_000 + 48, "the WAV sounds from the touch's frame, after the limiter's 1 ms look-ahead")

        let rendered = try BinaryRunner.run(["render", "--no-config", path("take.jsonl"), "-o", path("again.wav"), "--interp", "cubic", "--round", "off"])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        let again = try onset(path("again.wav"))
        XCTAssertEqual(again.first, wav.first, "re-rendered onset")
        let frames = min(again.left.count, wav.left.count)
        let diff = difference(again.left, wav.left, frames: frames)
        print("take: re-rendered touch script vs --record's WAV over \(frames) frames: largest difference \(diff)")
        // Within float rounding: live, play's stop (a release event of the script's source
        // after its last up) splits a block of the fading voice, which render does not.
        XCTAssertLessThan(diff, 1e-6, "sample for sample")
    }

    /// `play --script` stopped (SIGINT) after about a second of a long script: the touch
    /// script holds the events played, and the held touch ends at the stop; the WAV is
    /// silent after the stop (no queued event sounds); the take rendered again matches it.
    func testStoppedScriptWritesOnlyWhatWasPlayed() throws {
        let s = try script("long.jsonl", [#"{"t": 0.2, "type": "down", "id": 1, "x": 0.5, "y": 1}"#,
                                          #"{"t": 0.3, "type": "down", "id": 2, "x": 0.75, "y": 0.5}"#,
                                          #"{"t": 0.6, "type": "up", "id": 2}"#,
                                          #"{"t": 20.0, "type": "down", "id": 3, "x": 0.25, "y": 1}"#,
                                          #"{"t": 21.0, "type": "up", "id": 3}"#,
                                          #"{"t": 30.0, "type": "up", "id": 1}"#])
        let p = Process()
        p.executableURL = BinaryRunner.executable
        p.arguments = ["play", "--no-config", "--no-terminal", "--script", s, "-d", "null", "--interp", "cubic", "--round", "off",
                       "--record", path("take.wav"), "--record-touches", path("take.jsonl")]
        FileManager.default.createFile(atPath: path("stderr.txt"), contents: nil)
        p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: path("stderr.txt")))
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try p.run()
        try waitUntil("1 s recorded") { WAVReader.frames(path("take.wav")) > 48_000 }
        p.interrupt()
        p.waitUntilExit()
        let stderr = try String(contentsOfFile: path("stderr.txt"), encoding: .utf8)
        XCTAssertEqual(p.terminationStatus, 0, stderr)

        let take = try events(path("take.jsonl"))
        XCTAssertEqual(take.map(\.type), ["down", "down", "up", "up", "end"], "nothing queued for later: \(take)")
        XCTAssertEqual(take.map(\.t).prefix(3), [0.2, 0.3, 0.6])
        let stop = take[3].t
        let wav = try onset(path("take.wav"))
        let wavSeconds = Double(wav.left.count) / 48_000
        print(String(format: "stopped take: held touch ends at %.4f s; the WAV lasts %.4f s (the fade and one period after the stop)", stop, wavSeconds))
        XCTAssertGreaterThan(stop, 1.0)
        XCTAssertLessThan(stop, wavSeconds)
        // Silent from 9 ms after the stop (the 8 ms release): no queued event sounded.
        let quiet = Int((stop + 0.009) * 48_000)
        XCTAssertLessThan(quiet, wav.left.count)
        XCTAssertEqual(wav.left[min(quiet, wav.left.count)...].map(abs).max() ?? 0, 0, "silence after the stop")
        XCTAssertGreaterThan(wav.left[..<Int(stop * 48_000)].map(abs).max() ?? 0, 0.1, "the held touch sounded until the stop")
        let rendered = try BinaryRunner.run(["render", "--no-config", path("take.jsonl"), "-o", path("again.wav"), "--interp", "cubic", "--round", "off"])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        let again = try onset(path("again.wav"))
        let frames = min(again.left.count, wav.left.count)
        let diff = difference(again.left, wav.left, frames: frames)
        print("stopped take: re-rendered vs WAV over \(frames) frames: largest difference \(diff)")
        XCTAssertEqual(diff, 0)
    }

    /// A second take to the same names goes to take-1.* (one number for all its files,
    /// said on stderr), leaving the first untouched; --overwrite replaces; a play that
    /// fails before it starts leaves no file.
    func testRecordingsNeverReplaceAFileUnlessAsked() throws {
        let s = try script("s.jsonl", [#"{"t": 0.0, "type": "down", "id": 1, "x": 0.5, "y": 1}"#, #"{"t": 0.1, "type": "up", "id": 1}"#])
        let play = ["play", "--no-config", "--no-terminal", "--script", s, "-d", "null"]
        var r = try BinaryRunner.run(play + ["--record", path("take.wav")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let first = try Data(contentsOf: URL(fileURLWithPath: path("take.wav")))
        r = try BinaryRunner.run(play + ["--record", path("take.wav"), "--record-touches", path("take.jsonl")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("'\(path("take.wav"))' exists: this take is recorded to '\(path("take-1.wav"))', '\(path("take-1.jsonl"))' (--overwrite replaces instead)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("recorded '\(path("take-1.wav"))'"), r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("take.wav"))), first, "the first take is untouched")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("take.jsonl")))
        XCTAssertGreaterThan(try events(path("take-1.jsonl")).count, 0)
        r = try BinaryRunner.run(play + ["--record", path("take.wav")])
        XCTAssertTrue(r.stderr.contains("this take is recorded to '\(path("take-2.wav"))'"), r.stderr)
        // --overwrite: the name as given, replaced.
        try Data().write(to: URL(fileURLWithPath: path("old.jsonl")))
        r = try BinaryRunner.run(play + ["--record-touches", path("old.jsonl"), "--overwrite"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try events(path("old.jsonl")).map(\.type), ["down", "up", "end"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("old-1.jsonl")))
        // Fails before it starts (a tone that does not load): the names it claimed are gone.
        r = try BinaryRunner.run(play + ["--record", path("new.wav"), "--tone", path("no-such-tone.wav")])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("new.wav")), "no empty take left")
    }

    /// An output that is one of the command's inputs — by the same name, another spelling,
    /// a symbolic or a hard link — is refused with exit 2 before anything is read or
    /// written; the input stays byte for byte.
    func testNoCommandWritesOverItsInput() throws {
        let s = try script("same.jsonl", [#"{"t": 0.0, "type": "down", "id": 1, "x": 0.5, "y": 1}"#, #"{"t": 0.1, "type": "up", "id": 1}"#])
        let original = try Data(contentsOf: URL(fileURLWithPath: s))
        XCTAssertEqual(symlink(s, path("link.wav")), 0)
        XCTAssertEqual(link(s, path("hard.wav")), 0)
        let evemu = BinaryRunner.packageRoot.appendingPathComponent("Tests/BendEvdevTests/Fixtures/drag-two-fingers.evemu").path
        try FileManager.default.copyItem(atPath: evemu, toPath: path("rec.evemu"))
        let recording = try Data(contentsOf: URL(fileURLWithPath: path("rec.evemu")))
        try FileManager.default.copyItem(atPath: BinaryRunner.packageRoot.appendingPathComponent("Assets/synth_tone_mono.caf").path, toPath: path("tone.caf"))
        let tone = try Data(contentsOf: URL(fileURLWithPath: path("tone.caf")))
        let cases: [([String], String)] = [
            (["render", s, "-o", s], "render: -o '\(s)' is the input; writing it would destroy it: give another file name"),
            (["render", s, "-o", dir.path + "/./same.jsonl"], "is the input (as '\(s)')"),
            (["render", s, "-o", path("link.wav")], "render: -o '\(path("link.wav"))' is the input (as '\(s)')"),
            (["render", s, "-o", path("hard.wav")], "is the input"),
            (["render", s, "-o", path("tone.caf"), "--tone", path("tone.caf")], "render: -o '\(path("tone.caf"))' is the --tone file"),
            (["replay", path("rec.evemu"), "--touches", path("rec.evemu")], "replay: --touches '\(path("rec.evemu"))' is the input"),
            (["replay", path("rec.evemu"), "-o", path("rec.evemu")], "replay: -o"),
            (["play", "--no-terminal", "--script", s, "-d", "null", "--record-touches", s, "--overwrite"],
             "play: --record-touches '\(s)' is the --script file; writing it would destroy it"),
            (["play", "--no-terminal", "--script", s, "-d", "null", "--record", path("link.wav")], "is the --script file (as '\(s)')"),
        ]
        for (args, message) in cases {
            let r = try BinaryRunner.run(args + ["--no-config"])
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: s)), original, "\(args) kept the script")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("rec.evemu"))), recording)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("tone.caf"))), tone)
        // render -o an existing file that is not an input: replaced (as sox and cc -o do).
        try Data("old".utf8).write(to: URL(fileURLWithPath: path("out.wav")))
        let r = try BinaryRunner.run(["render", "--no-config", s, "-o", path("out.wav")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertGreaterThan(WAVReader.frames(path("out.wav")), 0)
    }

    /// The files a command reads without an output option naming them are inputs too:
    /// the config file (given, or the default one, and named by its own `output =` or
    /// `record-touches =`), the default tone, play's default shared key and web
    /// certificate. Each is refused (exit 2, naming it) and stays byte for byte.
    func testNoCommandWritesOverAFileItReadsWithoutAnOption() throws {
        let s = try script("take.jsonl", [#"{"t": 0.0, "type": "down", "id": 1, "x": 0.5, "y": 1}"#, #"{"t": 0.1, "type": "up", "id": 1}"#])
        let given = try script("given.conf", ["[render]", "rate = 48000"])
        let selfNamed = try script("self.conf", ["[render]", "output = \(path("self.conf"))"])
        let xdg = path("xdg"), assets = path("assets")
        try FileManager.default.createDirectory(atPath: xdg + "/bendsynth", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: assets, withIntermediateDirectories: true)
        let userConfig = xdg + "/bendsynth/bendsynth.conf", key = xdg + "/bendsynth/key"
        let cert = xdg + "/bendsynth/web-cert.pem", certKey = xdg + "/bendsynth/web-key.pem"
        try ["[play]", "record-touches = \(userConfig)", "overwrite = true"].joined(separator: "\n").write(toFile: userConfig, atomically: true, encoding: .utf8)
        try (String(repeating: "ab", count: 32) + "\n").write(toFile: key, atomically: true, encoding: .utf8)
        try "not read before the check".write(toFile: cert, atomically: true, encoding: .utf8)
        try "not read before the check".write(toFile: certKey, atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: BinaryRunner.packageRoot.appendingPathComponent("Assets/synth_tone_mono.caf").path,
                                         toPath: assets + "/synth_tone_mono.caf")
        let files = [given, selfNamed, userConfig, key, cert, certKey, assets + "/synth_tone_mono.caf"]
        let before = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let env = ["XDG_CONFIG_HOME": xdg, "BENDSYNTH_ASSETS": assets]
        let play = ["play", "--no-terminal", "--script", s, "-d", "null", "--overwrite"]
        let cases: [([String], String)] = [
            (["render", s, "-o", given, "--config", given], "render: -o '\(given)' is the config file; writing it would destroy it"),
            (["render", s, "--config", selfNamed], "render: -o '\(selfNamed)' is the config file"),
            (play, "play: --record-touches '\(userConfig)' is the config file"),
            (["render", s, "-o", assets + "/synth_tone_mono.caf", "--no-config"], "render: -o '\(assets)/synth_tone_mono.caf' is the default tone"),
            (play + ["--no-config", "--listen", "0.0.0.0:0", "--record", key], "play: --record '\(key)' is the shared key file"),
            (play + ["--no-config", "--web", "0.0.0.0:0", "--record-midi", cert], "play: --record-midi '\(cert)' is the web certificate"),
            (play + ["--no-config", "--web", "0.0.0.0:0", "--record", certKey], "play: --record '\(certKey)' is the web certificate's key"),
        ]
        for (args, message) in cases {
            let r = try BinaryRunner.run(args, environment: env, timeout: 30)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        XCTAssertEqual(try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }, before, "every file read is kept byte for byte")
        // A config file that names another output still renders.
        let r = try BinaryRunner.run(["render", s, "-o", path("out.wav"), "--config", given], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertGreaterThan(WAVReader.frames(path("out.wav")), 0)
    }
}
