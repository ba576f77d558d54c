// SPDX-License-Identifier: GPL-3.0-or-later
import BendMIDI
import BendTestSupport
import CSndFile
import Foundation
import XCTest

/// bendsynth.lv2 in a real host: Debian's jalv runs it as a JACK client on a private
/// jackd (dummy driver, 48 kHz, 256-frame periods); a test client plays notes and bends
/// into its MIDI input, another records its outputs. Each note sounds at its pitch, and
/// the recording is `bendsynth render` of the same MIDI, sample for sample.
final class JALVTests: XCTestCase {
    var server: JACKTestServer?
    var jalv: pid_t = 0
    /// jalv's stdin, held open (its console ends at the end of its input).
    var stdin: (read: Int32, write: Int32) = (-1, -1)

    override func tearDown() {
        if jalv > 0 { kill(jalv, SIGTERM); if Spawn.wait(jalv, seconds: 10) == nil { kill(jalv, SIGKILL); _ = Spawn.wait(jalv, seconds: 5) } }
        if stdin.write >= 0 { close(stdin.read); close(stdin.write) }
        server?.stop()
    }

    /// The MIDI played: (frame from the first, bytes). Frames are multiples of 50: whole
    /// ticks of the MIDI file (480 per quarter at 120 bpm: 960 a second, 50 frames a tick).
    static let song: [(frame: Int, bytes: [UInt8])] = [
        (4_800, [0x90, 69, 100]),                   // A4
        (4_800 + 24_000, [0xE0, 0x00, 0x60]),       // bent up a semitone (±2)
        (4_800 + 48_000, [0x80, 69, 64]),
        (4_800 + 48_000, [0xE0, 0x00, 0x40]),       // the bend back to its centre
        (4_800 + 57_600, [0x90, 76, 90]),           // E5
        (4_800 + 57_600 + 24_000, [0x80, 76, 64]),
        (4_800 + 86_400, [0x90, 57, 110]),          // A3, bent down 2 semitones
        (4_800 + 86_400, [0xE0, 0x00, 0x00]),
        (4_800 + 86_400 + 24_000, [0x80, 57, 64]),
    ]

    func testJalvPlaysNotesAndBendsAtTheirPitchesAsBendsynthRenderDoes() throws {
        guard JACKTestServer.installed, FileManager.default.isExecutableFile(atPath: "/usr/bin/jalv") else {
            throw XCTSkip("jackd2 and jalv are not installed; `make test` installs them")
        }
        _ = try LV2Bundle.build()
        let folder = try LV2TestFolder()
        server = try JACKTestServer(rate: 48_000, period: 256)
        setenv("LV2_PATH", LV2Bundle.path, 1)
        // Cubic interpolation on both sides: render makes the band-limited tables before it
        // starts, the plugin on a thread of its own while it plays.
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        stdin = (fds[0], fds[1])
        jalv = try Spawn.start(["jalv", "-x", "-n", "bendlv2", "-c", "interpolation=1", LV2Bundle.uri],
                               output: folder.url.appendingPathComponent("jalv.log").path, input: stdin.read)
        let capture = try JACKCapture(seconds: 6)
        XCTAssertTrue(capture.waitForPorts(["bendlv2:out_l", "bendlv2:out_r", "bendlv2:events_in"]),
                      (try? String(contentsOfFile: folder.url.appendingPathComponent("jalv.log").path, encoding: .utf8)) ?? "")
        XCTAssertTrue(capture.connect(left: "bendlv2:out_l", right: "bendlv2:out_r"))
        let sender = try JACKMIDISender(messages: Self.song)
        defer { sender.close() }
        XCTAssertTrue(sender.connect(to: "bendlv2:events_in"))
        sender.arm()
        XCTAssertEqual(sender.done.wait(timeout: .now() + 30), .success, "the sender wrote every message")
        // Until the last note's release has been recorded (its frame + 0.2 s).
        let deadline = Date().addingTimeInterval(30)
        var recorded: (left: [Float], right: [Float]) = ([], [])
        while Date() < deadline { usleep(200_000); if capture.frameCount > Self.song.last!.frame + 48_000 { break } }
        recorded = capture.finish()
        let left = recorded.left
        let start = try XCTUnwrap(left.firstIndex { $0 != 0 }, "the plugin sounds")

        // Pitches: 440·2^((n − 69 + bend)/12) within 0.1 %, 0.1…0.4 s into each stretch.
        // (`start` is the first note's first sound: the song's frame 4800.)
        func hz(_ from: Int) -> Double {
            let a = start + (from - 4_800) + 4_800, b = a + 14_400
            return Measure.peakFrequency(Array(left[a..<b]), rate: 48_000)
        }
        let stretches: [(at: Int, semitones: Double)] = [(4_800, 0), (28_800, 1), (62_400, 7), (91_200, -14)]
        for (at, semitones) in stretches {
            let expected = 440 * pow(2, semitones / 12)
            XCTAssertEqual(hz(at), expected, accuracy: expected * 0.001, "\(semitones) semitones")
        }

        // The same MIDI through `bendsynth render` (a MIDI file at the same frames).
        var ticks: [(tick: UInt64, message: MIDIMessage)] = []
        for (frame, bytes) in Self.song {
            ticks.append((UInt64(frame / 50), MIDIMessage(status: bytes[0], data1: bytes[1], data2: bytes.count > 2 ? bytes[2] : 0)))
        }
        let mid = folder.url.appendingPathComponent("song.mid").path, wav = folder.url.appendingPathComponent("song.wav").path
        try Data(StandardMIDIFile.format0(events: ticks, ticksPerQuarter: 480)).write(to: URL(fileURLWithPath: mid))
        let render = try LV2Bundle.run([LV2Bundle.bendsynth.path, "render", mid, "-o", wav, "--interp", "cubic", "--tone-note", "69", "--rate", "48000"])
        XCTAssertEqual(render.status, 0, render.output)
        let rendered = try Self.readLeft(wav)
        let renderStart = try XCTUnwrap(rendered.firstIndex { $0 != 0 })
        // Aligned at the first sound (the render's first note is 4800 frames in too).
        let n = min(rendered.count - renderStart, left.count - start, Self.song.last!.frame)
        var worst: Float = 0
        for i in 0..<n { worst = max(worst, abs(left[start + i] - rendered[renderStart + i])) }
        XCTAssertGreaterThan(n, 110_000, "the whole song compared")
        print("jalv capture against bendsynth render: \(n) frames, worst difference \(String(format: "%.1f", Measure.dB(Double(max(worst, 1e-12))))) dBFS")
        XCTAssertLessThan(Measure.dB(Double(worst)), -90, "the capture is the render within −90 dBFS (worst \(worst))")
    }

    static func readLeft(_ path: String) throws -> [Float] {
        var info = SF_INFO()
        let file = try XCTUnwrap(sf_open(path, Int32(SFM_READ), &info), "open \(path)")
        defer { sf_close(file) }
        var samples = [Float](repeating: 0, count: Int(info.frames) * Int(info.channels))
        _ = sf_readf_float(file, &samples, info.frames)
        return stride(from: 0, to: samples.count, by: Int(info.channels)).map { samples[$0] }
    }
}
