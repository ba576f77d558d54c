// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// `bendsynth play -a jack` on a private jackd (dummy driver, 48 kHz, 64-frame periods):
/// its ports, a capture of them against the offline render, a buffer-size change, the
/// server going away, allocations on JACK's process thread, and the options.
final class JACKPlayTests: JACKTestCase {
    /// Touches from 0.3 s on (silence before: the capture connects while it plays),
    /// two voices, a move and a tilt.
    static let script = """
    {"t": 0.3, "type": "down", "id": 1, "x": 0.25, "y": 0.8}
    {"t": 0.45, "type": "down", "id": 2, "x": 0.6, "y": 0.5}
    {"t": 0.6, "type": "move", "id": 1, "x": 0.4, "y": 0.7}
    {"t": 0.7, "type": "tilt", "value": -0.5}
    {"t": 0.9, "type": "up", "id": 1}
    {"t": 1.1, "type": "up", "id": 2}
    """

    /// The offline render of `script`: (left, right).
    private func render(_ script: String) throws -> (left: [Float], right: [Float]) {
        let wav = dir.appendingPathComponent("render.wav").path
        // `--interp cubic` here and in the live runs compared with it: live play makes the
        // band-limited tables on a thread while it starts (cubic until they are in), so
        // only cubic is sample-exact between a live run and an offline one.
        let r = try BinaryRunner.run(["render", script, "-o", wav, "--interp", "cubic"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let w = try WAVReader.read(wav)
        return (Measure.channel(w.samples, 0), Measure.channel(w.samples, 1))
    }

    /// Largest difference in dBFS between the reference and the capture, both taken
    /// from their first nonzero sample (the start of the first touch), over the
    /// reference's length.
    private func alignedDifference(_ capture: (left: [Float], right: [Float]), _ reference: (left: [Float], right: [Float])) throws -> Double {
        func start(_ s: (left: [Float], right: [Float])) -> Int? {
            zip(s.left.indices, zip(s.left, s.right)).first { $0.1.0 != 0 || $0.1.1 != 0 }?.0
        }
        let c = try XCTUnwrap(start(capture), "the capture holds sound")
        let r = try XCTUnwrap(start(reference), "the render holds sound")
        let n = reference.left.count - r
        XCTAssertGreaterThanOrEqual(capture.left.count - c, n, "the capture holds the whole render after the start")
        var worst: Float = 0
        for i in 0..<min(n, capture.left.count - c) {
            worst = max(worst, abs(capture.left[c + i] - reference.left[r + i]), abs(capture.right[c + i] - reference.right[r + i]))
        }
        return worst == 0 ? -.infinity : Measure.dB(Double(worst))
    }

    /// `jack_lsp -c` output → each port's connections.
    static func connections(_ listing: String) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        var current = ""
        for line in listing.split(separator: "\n") {
            if line.hasPrefix("   ") {
                result[current, default: []].insert(line.trimmingCharacters(in: .whitespaces))
            } else {
                current = String(line)
                result[current, default: []] = result[current] ?? []
            }
        }
        return result
    }

    /// jack_lsp lists out_L and out_R, connected to system:playback_1 and _2; a capture
    /// of the ports equals the offline render after aligning the start (the largest
    /// difference below −90 dBFS: here none at all).
    func testPlayOnJACKListsItsPortsAndSoundsLikeTheOfflineRender() throws {
        let script = try write(Self.script, "s.jsonl")
        let capture = try JACKCapture()
        let play = try startPlay(["-a", "jack", "--interp", "cubic", "--no-terminal", "--script", script])
        XCTAssertTrue(capture.waitForPorts(["bendsynth:out_L", "bendsynth:out_R"]), text(play.log))
        XCTAssertTrue(capture.connect(left: "bendsynth:out_L", right: "bendsynth:out_R"))
        var ports: [String: Set<String>] = [:]
        try waitUntil("out_L/out_R connected to system:playback_1/_2") {
            ports = Self.connections(try server!.ports())
            return ports["bendsynth:out_L"]?.contains("system:playback_1") == true
                && ports["bendsynth:out_R"]?.contains("system:playback_2") == true
        }
        XCTAssertEqual(ports["bendsynth:out_L"], ["system:playback_1", "capture:in_L"])
        XCTAssertEqual(ports["bendsynth:out_R"], ["system:playback_2", "capture:in_R"])
        XCTAssertEqual(Spawn.wait(play.pid, seconds: 30), 0, text(play.log))
        let log = text(play.log)
        XCTAssertTrue(log.contains("JACK client 'bendsynth' on server '\(server!.name)': 48000 Hz, period 64 frames"), log)
        let captured = capture.finish()
        let reference = try render(script)
        XCTAssertGreaterThan(Measure.rms(reference.left), 0.01, "the script is not silent")
        let difference = try alignedDifference(captured, reference)
        XCTAssertLessThan(difference, -90, "largest difference, dBFS")
    }

    /// The server's period grows from 64 to 256 frames (jack_bufsize) before the first
    /// touch: the process callback renders each 256-frame period in steps of the mixer's
    /// 64-frame bound, and the capture still equals the offline render.
    func testABufferSizeChangeBeyondTheMixersBoundStillSoundsLikeTheRender() throws {
        let script = try write(Self.script, "s.jsonl")
        let capture = try JACKCapture()
        let play = try startPlay(["-a", "jack", "--interp", "cubic", "--no-connect", "--no-terminal", "--script", script])
        XCTAssertTrue(capture.waitForPorts(["bendsynth:out_L", "bendsynth:out_R"]), text(play.log))
        XCTAssertTrue(capture.connect(left: "bendsynth:out_L", right: "bendsynth:out_R"))
        XCTAssertEqual(try Spawn.run(["jack_bufsize", "256"]).status, 0)
        XCTAssertEqual(Spawn.wait(play.pid, seconds: 30), 0, text(play.log))
        let log = text(play.log)
        XCTAssertTrue(log.contains("period 64 frames"), log)
        XCTAssertTrue(log.contains("out_L/out_R not connected (--no-connect)"), log)
        XCTAssertTrue(log.contains("the JACK server changed its period once during the run: 64 frames at the start, 256 at the end (rendered in steps of 64)"), log)
        let difference = try alignedDifference(capture.finish(), try render(script))
        XCTAssertLessThan(difference, -90, "largest difference, dBFS")
    }

    /// On a 44.1 kHz server with 128-frame periods play takes the server's rate and
    /// period and makes the tone at that rate: a touch at x 0.25 (ratio 0.5) sounds
    /// 220 Hz (±0.1 %) in the capture.
    func testTheServersRateAndPeriodAreTaken() throws {
        server?.stop()
        server = try JACKTestServer(rate: 44_100, period: 128)
        let script = try write(Self.script, "s.jsonl")
        let capture = try JACKCapture()
        let play = try startPlay(["-a", "jack", "--no-connect", "--no-terminal", "--script", script, "--pitch-map", "linear", "--round", "off"])
        XCTAssertTrue(capture.waitForPorts(["bendsynth:out_L", "bendsynth:out_R"]), text(play.log))
        XCTAssertTrue(capture.connect(left: "bendsynth:out_L", right: "bendsynth:out_R"))
        XCTAssertEqual(Spawn.wait(play.pid, seconds: 30), 0, text(play.log))
        XCTAssertTrue(text(play.log).contains(": 44100 Hz, period 128 frames"), text(play.log))
        let left = capture.finish().left
        let start = try XCTUnwrap(left.firstIndex { $0 != 0 }, "the capture holds sound")
        // The first touch alone: 0.15 s until the second one starts.
        let f = Measure.peakFrequency(Array(left[(start + 441)..<(start + 441 + 4410)]), rate: 44_100)
        XCTAssertEqual(f, 220, accuracy: 0.22, "x 0.25 → ratio 0.5 of the 440 Hz tone, at 44.1 kHz")
    }

    /// The server is held up for 100 ms (SIGSTOP, SIGCONT): its dummy driver finds itself
    /// late and reports an xrun, which play counts through JACK's xrun callback and shows.
    func testXrunsComeFromJACKsXrunCallback() throws {
        let script = try write(Self.script, "s.jsonl")
        let capture = try JACKCapture()
        let play = try startPlay(["-a", "jack", "--no-connect", "--no-terminal", "--script", script, "--pitch-map", "linear", "--round", "off"])
        XCTAssertTrue(capture.waitForPorts(["bendsynth:out_L"]), text(play.log))
        _ = capture.finish()
        kill(server!.pid, SIGSTOP)
        usleep(100_000)  // the hold-up itself, not a wait for a result
        kill(server!.pid, SIGCONT)
        XCTAssertEqual(Spawn.wait(play.pid, seconds: 30), 0, text(play.log))
        let line = try XCTUnwrap(text(play.log).split(separator: "\n").first { $0.contains("bendsynth: played") }, text(play.log))
        let xruns = Int(line.split(separator: ",").last?.split(separator: " ").first ?? "") ?? 0
        XCTAssertGreaterThanOrEqual(xruns, 1, String(line))
        XCTAssertTrue(server!.log.contains("XRun"), "jackd saw it too: \(server!.log)")
    }

    /// The server is stopped while play runs with both recordings: play says so,
    /// finishes the WAV and the touch script (both read back whole) and exits 1.
    func testTheServerGoingAwayFinishesTheFilesAndExits1() throws {
        let long = (0..<40).map { "{\"t\": \(Double($0) * 0.25), \"type\": \"down\", \"id\": \($0), \"x\": 0.5, \"y\": 0.5}\n{\"t\": \(Double($0) * 0.25 + 0.1), \"type\": \"up\", \"id\": \($0)}" }.joined(separator: "\n")
        let script = try write(long, "long.jsonl")
        let wav = dir.appendingPathComponent("take.wav").path
        let touches = dir.appendingPathComponent("take.jsonl").path
        let capture = try JACKCapture()
        let play = try startPlay(["-a", "jack", "--no-terminal", "--script", script, "--record", wav, "--record-touches", touches])
        XCTAssertTrue(capture.waitForPorts(["bendsynth:out_L"]), text(play.log))
        _ = capture.finish()
        try waitUntil("play started") { text(play.log).contains("JACK client 'bendsynth'") }
        server!.stop()
        let status = Spawn.wait(play.pid, seconds: 20)
        if status == nil { kill(play.pid, SIGKILL); _ = Spawn.wait(play.pid, seconds: 5) }
        let log = text(play.log)
        XCTAssertEqual(status, 1, "exit status (nil: still running 20 s after the server stopped): \(log)")
        XCTAssertTrue(log.contains("the JACK server '\(server!.name)' went away"), log)
        let take = try WAVReader.read(wav)
        XCTAssertEqual(take.channels, 2)
        XCTAssertTrue(log.contains("recorded '\(wav)' (WAV f32): \(take.frames) frames"), "the header counts every frame written: \(log)")
        let rendered = try BinaryRunner.run(["render", touches, "-o", dir.appendingPathComponent("again.wav").path])
        XCTAssertEqual(rendered.status, 0, "the touch script is whole: \(rendered.stderr)")
    }

    /// Under Benchmarks/render_watch.c (the malloc and mutex interposer, preloaded),
    /// JACK's process thread makes no heap allocation and takes no mutex over a whole
    /// play that also reads midi_in (jack_midiseq's notes) and writes midi_out (the
    /// script's touches as MPE), and it is the one thread watched (libjack runs the
    /// thread-init callback on its message-buffer and notification threads too: watched,
    /// they brought 2 mutex locks of their own).
    func testTheProcessThreadMakesNoHeapAllocationsAndTakesNoLocks() throws {
        let so = dir.appendingPathComponent("render_watch.so").path
        let root = BinaryRunner.packageRoot.path
        let cc = try Spawn.run(["cc", "-O2", "-shared", "-fPIC", "-I", "\(root)/Sources/CAllocCounter/include", "-o", so,
                                "\(root)/Benchmarks/render_watch.c", "-ldl"])
        XCTAssertEqual(cc.status, 0, cc.output)
        let script = try write(Self.script, "s.jsonl")
        let touches = dir.appendingPathComponent("touches.jsonl").path
        setenv("LD_PRELOAD", so, 1)
        let play = try startPlay(["-a", "jack", "--midi-in", "--midi-out", "--no-terminal", "--script", script,
                                  "--record-touches", touches, "--load-stats"])
        unsetenv("LD_PRELOAD")
        try waitUntil("play started") { text(play.log).contains("JACK client 'bendsynth'") }
        let seq = try Spawn.start(["jack_midiseq", "seq", "4800", "100", "64", "2000"])
        defer { kill(seq, SIGTERM); _ = Spawn.wait(seq, seconds: 5) }
        try waitUntil("jack_midiseq's port") { try Spawn.run(["jack_lsp"]).output.contains("seq:out") }
        try Spawn.connect("seq:out", "bendsynth:midi_in")
        try waitUntil("the script's touches and 10 MIDI notes recorded") {
            text(touches).components(separatedBy: "\"up\"").count > 12
        }
        kill(play.pid, SIGTERM)
        XCTAssertEqual(Spawn.wait(play.pid, seconds: 20), 0, text(play.log))
        let log = text(play.log)
        let line = try XCTUnwrap(log.split(separator: "\n").first { $0.contains("render thread over the whole run") }, log)
        XCTAssertTrue(line.contains(": 0 heap allocations, 0 mutex locks on 1 watched thread "), String(line))
        XCTAssertFalse(log.contains("MIDI in: 0 JACK events"), log)
        XCTAssertFalse(log.contains("MIDI out: 0 JACK events"), log)
        let periods = try XCTUnwrap(log.split(separator: "\n").first { $0.contains("render load per period") }, log)
        XCTAssertFalse(periods.contains("over 0 periods"), String(periods))
    }

    /// Options: -a takes alsa or jack; ALSA's options are refused with -a jack and
    /// JACK's without it (exit 2); no server is a runtime failure (exit 1) naming it.
    func testAudioDriverOptions() throws {
        let script = try write(Self.script, "s.jsonl")
        let bad = try BinaryRunner.run(["play", "-a", "pulse", "--no-terminal", "--script", script])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--audio-driver 'pulse': expected alsa or jack"), bad.stderr)
        let period = try BinaryRunner.run(["play", "-a", "jack", "--period", "128", "--no-terminal", "--script", script])
        XCTAssertEqual(period.status, 2)
        XCTAssertTrue(period.stderr.contains("--period is for ALSA"), period.stderr)
        let name = try BinaryRunner.run(["play", "--jack-name", "x", "--no-terminal", "--script", script])
        XCTAssertEqual(name.status, 2)
        XCTAssertTrue(name.stderr.contains("--jack-name is for the JACK client; add -a jack"), name.stderr)
        let long = try BinaryRunner.run(["play", "-a", "jack", "--jack-name", String(repeating: "n", count: 64), "--no-terminal", "--script", script])
        XCTAssertEqual(long.status, 2, long.stderr)
        XCTAssertTrue(long.stderr.contains("expected a client name without ':' of at most 63 bytes"), long.stderr)
        let midiOut = try BinaryRunner.run(["play", "--midi-out", "--no-terminal", "--script", script])
        XCTAssertEqual(midiOut.status, 2)
        XCTAssertTrue(midiOut.stderr.contains("--midi-out is for the JACK client; add -a jack"), midiOut.stderr)
        let none = try BinaryRunner.run(["play", "-a", "jack", "--no-terminal", "--script", script],
                                        environment: ["JACK_DEFAULT_SERVER": "bendsynth_no_such_server"])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("server 'bendsynth_no_such_server': jack_client_open: no JACK server running"), none.stderr)
        // bendsynth's one line, not libjack's own ("Cannot connect to server socket…").
        XCTAssertFalse(none.stderr.contains("Cannot connect") || none.stderr.contains("JackShm") || none.stderr.contains("jack server is not running"), none.stderr)
        XCTAssertEqual(none.stderr.split(separator: "\n").filter { $0.localizedCaseInsensitiveContains("jack") }.count, 1, none.stderr)
    }

    /// `devices` says whether a JACK server runs for `-a jack`, with its rate and period.
    func testDevicesSaysWhetherAJACKServerRuns() throws {
        let server = try XCTUnwrap(self.server)
        let running = try BinaryRunner.run(["devices"])
        XCTAssertEqual(running.status, 0, running.stderr)
        XCTAssertTrue(running.stdout.contains("JACK server (for play -a jack):\n  '\(server.name)' runs: 48000 Hz, period 64 frames"), running.stdout)
        let none = try BinaryRunner.run(["devices"], environment: ["JACK_DEFAULT_SERVER": "bendsynth_no_such_server"])
        XCTAssertTrue(none.stdout.contains("none running as 'bendsynth_no_such_server' — start jackd"), none.stdout)
        XCTAssertFalse(none.stderr.contains("Cannot connect"), "libjack's lines silenced: \(none.stderr)")
    }

    /// `--midi-in` with ALSA output opens an ALSA sequencer port; on a machine without
    /// /dev/snd/seq it says so and exits 1 (the port itself is tested where it exists).
    func testMIDIInWithALSAOutputNeedsTheSequencer() throws {
        let script = try write(Self.script, "s.jsonl")
        let r = try BinaryRunner.run(["play", "--midi-in", "-d", "null", "--no-terminal", "--script", script])
        guard access("/dev/snd/seq", F_OK) == 0 else {
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("--midi-in: no ALSA sequencer (/dev/snd/seq is missing"), r.stderr)
            throw XCTSkip("no /dev/snd/seq on this machine (no snd-seq module): the ALSA sequencer port is not tested; the refusal is")
        }
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("ALSA sequencer port ") && r.stderr.contains("'midi_in'"), r.stderr)
    }

    /// --jack-name names the client and its ports.
    func testJackNameNamesTheClient() throws {
        let script = try write(Self.script, "s.jsonl")
        let capture = try JACKCapture()
        let play = try startPlay(["-a", "jack", "--jack-name", "synth2", "--no-connect", "--no-terminal", "--script", script])
        XCTAssertTrue(capture.waitForPorts(["synth2:out_L", "synth2:out_R"]), text(play.log))
        _ = capture.finish()
        XCTAssertEqual(Spawn.wait(play.pid, seconds: 30), 0, text(play.log))
    }
}
