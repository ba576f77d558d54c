// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendTestSupport
import CSndFile
import Foundation
import XCTest

/// SIGTERM, SIGINT, SIGHUP and SIGPIPE at random moments of `play --record W.wav
/// --record-touches T.jsonl` (a script holding touches the whole time, on the clock-paced
/// null device), 50 runs: each run ends by itself (exit 0) or — only if the signal came
/// before play set anything up — was killed before writing anything; every WAV opens in
/// libsndfile and lasts as long as play ran until it was stopped, within 1 s (the debug
/// build's start-up before the first period is part of that second); every touch script parses and
/// ends with no touch held. SIGPIPE must not stop play: a SIGTERM follows it.
final class StopSignalTests: XCTestCase {
    static let signals: [(Int32, String)] = [(SIGTERM, "TERM"), (SIGINT, "INT"), (SIGHUP, "HUP"), (SIGPIPE, "PIPE")]

    func testFiftyRunsStoppedBySignalsLeaveWholeFiles() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("held.jsonl").path
        try Self.heldScript().write(toFile: script, atomically: true, encoding: .utf8)
        let runs = 50, workers = 5
        var results = [RunResult?](repeating: nil, count: runs)
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for run in stride(from: worker, to: runs, by: workers) {
                var rng = SplitMix(seed: 0x516_0000 + UInt64(run))
                let delay = Double(rng.next() % 1_200) / 1000   // 0…1.2 s after the start
                let r = Self.play(run: run, signal: Self.signals[run % 4].0, after: delay, script: script, dir: dir.path)
                lock.withLock { results[run] = r }
            }
        }
        var cleanStops = 0
        for case let r? in results {
            let what = "run \(r.run): SIG\(Self.signals[r.run % 4].1) at \(String(format: "%.3f", r.delay)) s"
            if r.killedBy != 0 {
                // Killed before play blocked the signal: then nothing may have been written.
                XCTAssertFalse(FileManager.default.fileExists(atPath: r.wav), "\(what): killed by signal \(r.killedBy) after creating the WAV\n\(r.stderr)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: r.touches), "\(what): killed by signal \(r.killedBy) after creating the touch script")
                continue
            }
            XCTAssertEqual(r.status, 0, "\(what): \(r.stderr)")
            XCTAssertFalse(r.timedOut, "\(what): play did not stop within 5 s of the signal\n\(r.stderr)")
            cleanStops += 1
            // The WAV: libsndfile opens it; its length is the run's within 1 s.
            var info = SF_INFO()
            if let f = sf_open(r.wav, Int32(SFM_READ), &info) {
                sf_close(f)
                let seconds = Double(info.frames) / Double(info.samplerate)
                XCTAssertEqual(seconds, r.stoppedAt, accuracy: 1, "\(what): the WAV lasts \(seconds) s, play was stopped \(r.stoppedAt) s after it started")
            } else {
                XCTFail("\(what): libsndfile cannot open the WAV: \(String(cString: sf_strerror(nil)))\n\(r.stderr)")
            }
            // The touch script: parses, and no touch is held at its end.
            do {
                let taken = try TouchScript.load(path: r.touches)
                var held = Set<UInt32>()
                for e in taken.entries {
                    guard let (id, phase) = e.event.touchPhase else { continue }
                    if phase == .down { held.insert(id) } else if phase == .up { held.remove(id) }
                }
                XCTAssertEqual(held, [], "\(what): touches held at the end of the recorded script")
            } catch {
                XCTFail("\(what): the touch script does not parse: \(error)")
            }
        }
        XCTAssertGreaterThanOrEqual(cleanStops, 45, "most signals land after play started")
        print("signals: \(runs) runs, \(cleanStops) stopped cleanly, \(runs - cleanStops) killed before play started")
    }

    struct RunResult {
        var run: Int
        var delay: Double
        var status: Int32 = -1
        var killedBy: Int32 = 0
        var timedOut = false
        /// Seconds from the start to the signal that stops play (SIGPIPE: the SIGTERM after it).
        var stoppedAt = 0.0
        var wallSeconds = 0.0
        var wav = "", touches = "", stderr = ""
    }

    /// Touches 1 and 2 held from the start, moving, a third coming and going: 10 s, so
    /// play never ends by itself here (the watchdog stops it after 5 s).
    static func heldScript() -> String {
        var lines = [#"{"t": 0, "type": "down", "id": 1, "x": 0.3, "y": 0.5}"#, #"{"t": 0, "type": "down", "id": 2, "x": 0.7, "y": 0.5}"#]
        for step in 1...100 {
            let t = Double(step) * 0.1
            lines.append(#"{"t": \#(t), "type": "move", "id": 1, "x": \#(0.3 + 0.1 * Double(step % 5)), "y": 0.5}"#)
            if step % 4 != 0 {
                lines.append(#"{"t": \#(t), "type": "\#(step % 4 == 1 ? "down" : step % 4 == 3 ? "up" : "move")", "id": 3, "x": 0.5, "y": 0.6}"#)
            }
        }
        lines.append(#"{"t": 10.05, "type": "up", "id": 1}"#)
        lines.append(#"{"t": 10.05, "type": "up", "id": 2}"#)
        return lines.joined(separator: "\n") + "\n"
    }

    /// One run: start play, send `signal` `after` seconds (SIGPIPE: then SIGTERM 0.3 s
    /// later), wait for it to exit (SIGKILL 5 s after the last signal: timed out).
    static func play(run: Int, signal: Int32, after delay: Double, script: String, dir: String) -> RunResult {
        var r = RunResult(run: run, delay: delay)
        r.wav = "\(dir)/take-\(run).wav"
        r.touches = "\(dir)/take-\(run).jsonl"
        let errPath = "\(dir)/play-\(run).err"
        let args = [BinaryRunner.executable.path, "play", "--no-config", "--no-terminal", "-d", "null", "--script", script,
                    "--record", r.wav, "--record-touches", r.touches,
                    "--interp", "cubic"]  // no band-limited tables to make: the debug build starts and ends faster
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = Date()
        guard posix_spawn(&pid, args[0], &actions, nil, argv, environ) == 0 else { r.stderr = "posix_spawn failed"; return r }
        // The random moment itself is the point of the test: sleep until it.
        usleep(useconds_t(delay * 1_000_000))
        kill(pid, signal)
        r.stoppedAt = Date().timeIntervalSince(start)
        if signal == SIGPIPE {
            usleep(300_000)
            kill(pid, SIGTERM)
            r.stoppedAt = Date().timeIntervalSince(start)
        }
        // Wait for the exit; a watchdog kills a play that does not stop.
        let exited = DispatchSemaphore(value: 0), child = pid
        DispatchQueue.global().async {
            if exited.wait(timeout: .now() + 5) == .timedOut { kill(child, SIGKILL) }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        exited.signal()
        r.wallSeconds = Date().timeIntervalSince(start)
        r.stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        if status & 0x7f != 0 {
            r.killedBy = status & 0x7f
            r.timedOut = r.killedBy == SIGKILL
            if r.timedOut { r.killedBy = 0; r.status = -1 }
        } else {
            r.status = (status >> 8) & 0xff
        }
        return r
    }
}
