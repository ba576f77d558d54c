// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Foundation
import Glibc
import XCTest

/// `play --web` against a real browser: headless Chromium (Debian's `chromium`) opens
/// the printed address and plays with DevTools touch events and an orientation
/// override; the touch script `play` records says what reached the instrument.
final class WebPlayTests: XCTestCase {
    /// The touch and tilt lines of a script, by type.
    private func lines(_ touches: [[String: Any]], _ type: String) -> [[String: Any]] {
        touches.filter { $0["type"] as? String == type }
    }

    func testThreeFingersAndTiltFromChromiumOverHTTPS() throws {
        let dir = try webTestDirectory()
        let config = dir.appendingPathComponent("config").path
        let play = try WebPlayProcess(["--web", "127.0.0.1:0", "--web-https"], dir: dir, environment: ["XDG_CONFIG_HOME": config])
        XCTAssertTrue(play.url.hasPrefix("https://127.0.0.1:"), play.url)
        XCTAssertEqual(play.token.count, 32)

        // The certificate made at first use: mode 0600, and the fingerprint printed is its own.
        for name in ["web-cert.pem", "web-key.pem"] {
            let mode = try FileManager.default.attributesOfItem(atPath: config + "/bendsynth/" + name)[.posixPermissions] as? Int
            XCTAssertEqual(mode, 0o600, name)
        }
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["x509", "-noout", "-fingerprint", "-sha256", "-in", config + "/bendsynth/web-cert.pem"]
        let out = Pipe()
        openssl.standardOutput = out
        try openssl.run()
        let fingerprint = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
        openssl.waitUntilExit()
        XCTAssertTrue(play.stderr.contains("SHA-256 fingerprint is \(fingerprint)"), "\(fingerprint) not in:\n\(play.stderr)")

        let shot = dir.appendingPathComponent("pad.png").path
        let driver = try play.chromium("play", [shot])
        XCTAssertEqual(play.terminate(), 0, play.stderr)

        let touches = play.touches
        // Tilt: gamma −30° in portrait is −30/45.
        let tilt = try XCTUnwrap(lines(touches, "tilt").last?["value"] as? Double, "no tilt in \(touches)")
        XCTAssertEqual(tilt, -30.0 / 45, accuracy: 0.01)
        // Three touches at the dispatched points, all down at once, moved, each ended.
        for kind in ["down", "move"] {
            let sent = driver.filter { $0.first == kind }.map { (Double($0[2])!, Double($0[3])!) }
            let got = lines(touches, kind)
            XCTAssertEqual(got.count, 3, "\(kind): \(touches)")
            for (point, line) in zip(sent, got.sorted { ($0["id"] as! Int) < ($1["id"] as! Int) }) {
                XCTAssertEqual(line["x"] as? Double ?? -1, point.0, accuracy: 0.01, "\(kind) \(line)")
                XCTAssertEqual(line["y"] as? Double ?? -1, point.1, accuracy: 0.01, "\(kind) \(line)")
            }
        }
        var held = 0, most = 0
        for line in touches {
            if line["type"] as? String == "down" { held += 1 }
            if line["type"] as? String == "up" { held -= 1 }
            most = max(most, held)
        }
        XCTAssertEqual(most, 3, "three touches at once")
        XCTAssertEqual(held, 0, "every touch ended")
        XCTAssertEqual(Set(lines(touches, "up").compactMap { $0["id"] as? Int }).count, 3)

        // The screenshot: the touch drawn under each finger (amber), the empty pad dark.
        let size = try XCTUnwrap(driver.first { $0.first == "screenshot" })
        XCTAssertEqual(Int(size[1]), 800)
        XCTAssertTrue(FileManager.default.fileExists(atPath: shot))
        for line in driver where line.first == "pixel" {
            let (r, g, b) = (Int(line[2])!, Int(line[3])!, Int(line[4])!)
            if line[1] == "empty" {
                XCTAssertLessThan(max(r, g, b), 48, "empty pad \(line)")
            } else {
                XCTAssertGreaterThan(r, 180, "touch \(line)")
                XCTAssertTrue((100...190).contains(g), "touch \(line)")
                XCTAssertLessThan(b, 90, "touch \(line)")
            }
        }
    }

    /// The web bench's headline path, Chromium's touch emulation (DevTools' device mode):
    /// the page sees each tap as a pointer of type "touch" (the driver fails otherwise),
    /// and each reaches the instrument at the point the bench dispatched it.
    func testTouchEmulationTapsArriveAsTouchesAtTheirPoints() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        let driver = try play.chromium("bench", ["5", "emulated"])
        XCTAssertEqual(play.terminate(), 0, play.stderr)
        XCTAssertEqual(driver.filter { $0.first == "down" }.count, 5)
        let downs = lines(play.touches, "down")
        XCTAssertEqual(downs.count, 5, "\(play.touches)")
        for (i, line) in downs.enumerated() {
            // The bench's i-th tap: x = 0.2 + 0.6·i/50, y = 0.5 (pad_driver.py).
            XCTAssertEqual(line["x"] as? Double ?? -1, 0.2 + 0.6 * Double(i) / 50, accuracy: 0.005, "\(line)")
            XCTAssertEqual(line["y"] as? Double ?? -1, 0.5, accuracy: 0.005, "\(line)")
        }
        XCTAssertEqual(lines(play.touches, "up").count, 5, "every tap lifted")
    }

    func testAWrongTokenPlaysNothingAndThePageSaysWhy() throws {
        let dir = try webTestDirectory()
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: dir)
        XCTAssertTrue(play.url.hasPrefix("http://127.0.0.1:"), play.url)
        let wrong = String(play.url.split(separator: "#")[0]) + "#" + String(repeating: "0", count: 32)
        let driver = try play.chromium("wrongtoken", url: wrong)
        let message = try XCTUnwrap(driver.first { $0.first == "message" }).dropFirst().joined(separator: " ")
        XCTAssertEqual(message, "wrong pairing token: open the address bendsynth printed")
        XCTAssertEqual(play.terminate(), 0, play.stderr)
        XCTAssertTrue(play.stderr.contains("bendsynth: web: refused 127.0.0.1: wrong pairing token"), "the player is told: \(play.stderr)")
        XCTAssertEqual(play.touches.count, 0, "nothing played, no take written: \(play.touches)")
    }

    func testAKilledBrowsersTouchEndsWithinOneSecond() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        let driver = try play.chromium("kill")
        let killed = try XCTUnwrap(driver.first { $0.first == "killed" }.flatMap { UInt64($0[1]) })
        XCTAssertEqual(lines(play.touches, "down").count, 1)
        try waitUntil("the killed page's touch to end", seconds: 5) { !lines(play.touches, "up").isEmpty }
        let seen = MonotonicClock.nanos()
        XCTAssertLessThan(Double(seen - killed) / 1e9, 1.0, "up seen after the kill")
        XCTAssertEqual(play.terminate(), 0, play.stderr)
    }

    func testASilentConnectionsTouchEndsWithinOneSecond() throws {
        // A phone gone without closing (Wi-Fi lost): its socket stays open, silent.
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [BinaryRunner.packageRoot.appendingPathComponent("Tests/BendAppTests/web/ws_client.py").path,
                       "silent", "127.0.0.1", play.port, play.token]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        defer { try? input.fileHandleForWriting.close(); p.waitUntilExit() }
        var text = ""
        try waitUntil("the client's down", seconds: 10) {
            text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            return text.contains("down ")
        }
        let down = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("down ") }.flatMap { UInt64($0.split(separator: " ")[1]) })
        try waitUntil("the silent connection's touch to end", seconds: 5) { !lines(play.touches, "up").isEmpty }
        let seconds = Double(MonotonicClock.nanos() - down) / 1e9
        XCTAssertGreaterThan(seconds, 0.5, "ended before the page's pings could be missed")
        XCTAssertLessThan(seconds, 1.0)
        XCTAssertEqual(lines(play.touches, "down").count, 1)
        XCTAssertEqual(play.terminate(), 0, play.stderr)
    }

    func testABadMessageClosesOnlyItsConnectionWithAReason() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        let (status, out) = try play.run("ws_client.py", ["bad", "127.0.0.1", play.port, play.token])
        XCTAssertEqual(status, 0)
        let closed = Dictionary(uniqueKeysWithValues: out.filter { $0.first == "closed" }.map { ($0[1], $0[2...].joined(separator: " ")) })
        XCTAssertEqual(closed["nan"], "4002 line 1: x: expected a decimal number in 0.0…1.0, got 'nan'")
        XCTAssertEqual(closed["range"], "4002 line 1: x: expected a decimal number in 0.0…1.0, got '1.5'")
        XCTAssertEqual(closed["unknown"], "4002 line 1: unknown type 'z' (expected h, d, m, u, f, t, p, s or x)")
        XCTAssertEqual(closed["fields"], "4002 line 1: 'd' takes 4 fields (d ID X Y T), got 2")
        XCTAssertEqual(closed["oversized"], "4002 message over 1024 bytes")
        XCTAssertEqual(closed["binary"], "4002 binary messages are not used")
        XCTAssertEqual(closed["wrongtoken"], "4001 wrong pairing token: open the address bendsynth printed")
        // The good connection played on: its pongs, and its touch down and up.
        XCTAssertEqual(out.filter { $0.first == "pong" }.map { $0[1] }, ["P", "P"])
        XCTAssertEqual(play.terminate(), 0, play.stderr)
        XCTAssertEqual(play.touches.map { $0["type"] as? String }, ["down", "up", "end"])
        // The player is told, as of peers: phones coming, a bad one closed (a line per
        // kind in 10 s, the rest counted), the good one leaving.
        XCTAssertTrue(play.stderr.contains("bendsynth: web: phone 1 connected from 127.0.0.1"), play.stderr)
        XCTAssertTrue(play.stderr.contains("(127.0.0.1): line 1: x: expected a decimal number in 0.0…1.0, got 'nan'"), play.stderr)
        XCTAssertTrue(play.stderr.contains("bendsynth: web: phone 1 left; its touches ended"), play.stderr)
    }

    /// A message is whole however it arrives: in two reads of the server (a backlog that
    /// ended mid-frame, a phone's Wi-Fi delivering in bursts: the soak's web pads were
    /// closed with "over 1024 bytes, or fragmented" for it) or as two WebSocket frames.
    func testAMessageInPiecesPlaysAndKeepsItsConnection() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        let (status, out) = try play.run("ws_client.py", ["split", "127.0.0.1", play.port, play.token])
        XCTAssertEqual(status, 0, "\(out)")
        XCTAssertEqual(out.filter { $0.first == "pong" }.map { $0[1] }, ["P", "P", "P"], "\(out)")
        XCTAssertEqual(play.terminate(), 0, play.stderr)
        // The second touch's move came in 4 pieces over 0.9 s: the pieces count as the
        // connection being heard, so the silence rule (0.6 s) did not end the touch.
        XCTAssertEqual(play.touches.map { $0["type"] as? String }, ["down", "up", "down", "move", "up", "end"])
        let down = try XCTUnwrap(play.touches.first)
        XCTAssertEqual(try XCTUnwrap(down["x"] as? Double), 0.25, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(down["y"] as? Double), 0.75, accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(play.touches[3]["y"] as? Double), 0.25, accuracy: 1e-6)
    }

    /// Connections that never pair cannot keep the phones out: each is closed 5 s
    /// (`WebLimits.helloSeconds`) after it opened (before, 16 of them held every unpaired
    /// place for as long as they stayed open, and a phone was refused with 4004).
    func testConnectionsThatNeverPairAreClosedAfterFiveSeconds() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        let (status, out) = try play.run("ws_client.py", ["unpaired", "127.0.0.1", play.port, play.token])
        XCTAssertEqual(status, 0, "\(out)")
        let closed = out.filter { $0.first == "closed" }.compactMap { Double($0[1]) }
        XCTAssertEqual(closed.count, 16, "\(out)")
        for seconds in closed {
            XCTAssertGreaterThan(seconds, 4.5, "\(out)")
            XCTAssertLessThan(seconds, 7.0, "\(out)")
        }
        XCTAssertEqual(out.first { $0.first == "paired" }?.dropFirst().first, "ok", "\(out)")
        // The timeout ends at the hello: the paired connection still answers 7 s later.
        XCTAssertGreaterThanOrEqual(out.first { $0.first == "kept" }.flatMap { Double($0[1]) } ?? 0, 7, "\(out)")
        XCTAssertEqual(play.terminate(), 0, play.stderr)
    }

    func testOnlyGetOfThePagesFilesIsServed() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        let (status, out) = try play.run("ws_client.py", ["http", "127.0.0.1", play.port, play.token])
        XCTAssertEqual(status, 0)
        let got = Dictionary(out.filter { $0.first == "status" }.map { ("\($0[1]) \($0[2])", $0[3]) }) { a, _ in a }
        let page = try String(contentsOf: BinaryRunner.packageRoot.appendingPathComponent("Assets/web/pad.js"), encoding: .utf8)
        XCTAssertTrue(out.contains { $0.starts(with: ["status", "GET", "/pad.js", "200", "text/javascript;", "charset=utf-8", String(page.utf8.count)]) }, "\(out)")
        XCTAssertEqual(got, ["GET /": "200", "GET /index.html": "200", "GET /pad.js": "200", "GET /pad.css": "200",
                             "GET /../../../../etc/passwd": "404", "GET /%2e%2e/%2e%2e/etc/passwd": "404",
                             "GET /Assets/web/pad.js": "404", "GET /nothing": "404", "POST /": "404",
                             "HEAD /": "404", "GET /ws": "404"])
        XCTAssertTrue(out.contains(["upgrade", "/other", "refused"]), "\(out)")
        // Every answer, a file or a 404, carries the security headers.
        for request in ["GET /", "GET /pad.js", "GET /nothing", "POST /"] {
            let headers = Dictionary(out.filter { $0.first == "header" && "\($0[1]) \($0[2])" == request }
                .map { ($0[3], $0.dropFirst(4).joined(separator: " ")) }) { a, _ in a }
            XCTAssertEqual(headers, ["cache-control": "no-store", "x-content-type-options": "nosniff", "referrer-policy": "no-referrer",
                                     "content-security-policy": "default-src 'self'; connect-src 'self'; frame-ancestors 'none'"], request)
        }
        XCTAssertEqual(play.terminate(), 0, play.stderr)
    }

    func testEightPagesAtOncePlayEightTouchesAndANinthIsTurnedAway() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        let driver = try play.chromium("pages", ["8"])
        let extra = try XCTUnwrap(driver.first { $0.first == "extra" }).dropFirst().joined(separator: " ")
        XCTAssertTrue(extra.hasPrefix("8 phones already play"), extra)
        XCTAssertEqual(play.terminate(), 0, play.stderr)
        XCTAssertTrue(play.stderr.contains("bendsynth: web: phone 8 connected from 127.0.0.1"), play.stderr)
        XCTAssertTrue(play.stderr.contains("bendsynth: web: refused 127.0.0.1: 8 phones already play"), play.stderr)
        let touches = play.touches
        let downs = lines(touches, "down")
        XCTAssertEqual(downs.count, 8)
        XCTAssertEqual(Set(downs.compactMap { $0["id"] as? Int }).count, 8, "eight touches, eight ids")
        XCTAssertEqual(downs.compactMap { $0["x"] as? Double }.sorted().map { ($0 * 10).rounded() / 10 },
                       [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
        let firstUp = touches.firstIndex { $0["type"] as? String == "up" } ?? touches.count
        XCTAssertEqual(touches[..<firstUp].filter { $0["type"] as? String == "down" }.count, 8, "all eight held at once")
        XCTAssertEqual(lines(touches, "up").count, 8)
    }
}

/// `play --web`'s option and setup errors: bad usage exits 2, runtime failures 1.
final class WebOptionTests: XCTestCase {
    func testBadWebOptionsExitTwoNamingTheProblem() throws {
        let dir = try webTestDirectory()
        let badToken = dir.appendingPathComponent("token").path
        try "x\n".write(toFile: badToken, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["--web-https"], "--web-cert, --web-key, --web-token-file and --web-https need --web [ADDR][:PORT]"),
            (["--web", "phone.local"], "'phone.local' is not a numeric IPv4 address"),
            (["--web", ":http"], "port 'http' is not a number in 0…65535"),
            (["--web", "[::1]:4000"], "IPv6 is not supported by the web controller yet"),
            (["--web", ":0", "--web-cert", "c.pem"], "--web-cert and --web-key go together"),
            (["--web", ":0", "--web-token-file", badToken], "token file '\(badToken)', line 1: expected 16…64 characters"),
            (["--web", ":0", "--web-cert", badToken, "--web-key", badToken], "--web-cert '\(badToken)': not a PEM certificate"),
        ]
        for (args, words) in cases {
            let r = try BinaryRunner.run(["play", "--device", "null", "--no-terminal"] + args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(words), "\(args): \(r.stderr)")
        }
    }

    /// A port another program listens on: bendsynth's own words (as for `--listen`), not
    /// libwebsockets' lines, and exit 1.
    func testAPortInUseIsARuntimeFailure() throws {
        let taken = try Socket.listening(on: SocketAddress(numeric: "127.0.0.1", port: 0)!)
        defer { taken.close() }
        let port = try taken.localAddress().port
        let r = try BinaryRunner.run(["play", "--device", "null", "--no-terminal", "--web", "127.0.0.1:\(port)"])
        XCTAssertEqual(r.status, 1, r.stderr)
        // Every line but the null PCM's note: bendsynth's one message.
        XCTAssertEqual(r.stderr.split(separator: "\n").filter { !$0.hasPrefix("bendsynth: note: ALSA 'null'") },
                       ["bendsynth: play: --web 127.0.0.1:\(port): the port is in use (another program listens there); "
                        + "choose another with --web ADDR:PORT"], r.stderr)
    }

    /// A bad token file is bad input found with the other options: exit 2 before the audio
    /// device is opened (a PCM that does not exist would say so first, exit 1).
    func testABadTokenFileIsSaidBeforeTheAudioDeviceOpens() throws {
        let badToken = try webTestDirectory().appendingPathComponent("token").path
        try "x\n".write(toFile: badToken, atomically: true, encoding: .utf8)
        let r = try BinaryRunner.run(["play", "--device", "bendsynth_no_such_pcm", "--no-terminal", "--web", ":0", "--web-token-file", badToken])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("bendsynth: token file '\(badToken)', line 1: expected 16…64 characters"), r.stderr)
        XCTAssertFalse(r.stderr.contains("bendsynth_no_such_pcm"), r.stderr)
    }

    /// Standard error not a terminal (a file here, as a pipe or the journal): the address
    /// on its own line and no QR code — no escape sequence in the file.
    func testNoQRCodeWhenStandardErrorIsNotATerminal() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        XCTAssertEqual(play.terminate(), 0, play.stderr)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: play.stderrPath))
        XCTAssertFalse(bytes.contains(0x1B), play.stderr)
        XCTAssertFalse(play.stderr.contains("\\x1b"), play.stderr)
        XCTAssertFalse(play.stderr.contains("█") || play.stderr.contains("▀"), play.stderr)
        // Loopback: the line says a phone cannot reach it.
        XCTAssertTrue(play.stderr.contains("loopback: a browser on this machine only (for a phone, --web with this machine's address, e.g. --web 0.0.0.0); open this address:\n\(play.url)\n"), play.stderr)
    }

    /// An address this machine does not have (TEST-NET-3): libwebsockets would log it and
    /// serve nothing; play says so and exits 1.
    func testAnAddressNotOnThisMachineIsARuntimeFailure() throws {
        let r = try BinaryRunner.run(["play", "--device", "null", "--no-terminal", "--web", "203.0.113.7:47880"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot serve on 203.0.113.7:47880: bind(203.0.113.7:0): Cannot assign requested address"), r.stderr)
    }

    func testATokenFileKeepsTheAddressAcrossStarts() throws {
        let dir = try webTestDirectory()
        let file = dir.appendingPathComponent("token").path
        let first = try WebPlayProcess(["--web", "127.0.0.1:0", "--web-token-file", file], dir: dir)
        XCTAssertEqual(first.terminate(), 0)
        let second = try WebPlayProcess(["--web", "127.0.0.1:0", "--web-token-file", file], dir: dir)
        XCTAssertEqual(second.terminate(), 0)
        XCTAssertEqual(first.token, second.token)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), first.token + "\n")
        let third = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        XCTAssertEqual(third.terminate(), 0)
        XCTAssertNotEqual(third.token, first.token, "a new token at each start without the file")
    }
}

/// `play --web` with the terminal pad, in a real terminal (tmux): the address and its
/// QR code stay on screen until Enter, then the pad; the phone plays meanwhile.
final class WebTerminalTests: XCTestCase {
    let tmux = Tmux("bendsynth-webtest")

    func testTheQRCodeIsShownUntilEnterThenThePad() throws {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let dir = try webTestDirectory()
        let touches = dir.appendingPathComponent("touches.jsonl").path
        let command = "\(BinaryRunner.executable.path) play -d null --web 127.0.0.1:0 --record-touches \(touches); echo exit=$?; sleep 30"
        try tmux(["new-session", "-d", "-s", "play", "-x", "100", "-y", "50", command])
        defer { try? tmux(["kill-server"]) }
        try waitUntil("the QR code") { try tmux.screen("play").contains("press Enter for the pad") }
        let screen = try tmux.screen("play")
        let lines = screen.split(separator: "\n")
        let url = try XCTUnwrap(lines.first { $0.hasPrefix("http://127.0.0.1:") && $0.contains("/#") }, screen)
        // The code: lines of half blocks, as many as half its modules plus the quiet zone.
        let code = lines.filter { $0.contains("▀") || $0.contains("▄") || $0.contains("█") }
        XCTAssertGreaterThanOrEqual(code.count, 12, screen)

        // Before Enter the phone already plays: a touch held silent ends by the silence
        // rule 0.5…1 s later on the stream's clock (with the output not yet running, its
        // down and up were both stamped at t = 0).
        let hostPort = url.dropFirst("http://".count).prefix { $0 != "/" }
        let port = String(hostPort.split(separator: ":")[1])
        let token = String(url.split(separator: "#")[1])
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        client.arguments = [BinaryRunner.packageRoot.appendingPathComponent("Tests/BendAppTests/web/ws_client.py").path,
                            "silent", "127.0.0.1", port, token]
        let input = Pipe()
        client.standardInput = input
        client.standardOutput = Pipe()
        try client.run()
        defer { try? input.fileHandleForWriting.close(); client.waitUntilExit() }
        try waitUntil("the phone's touch to end before Enter", seconds: 10) {
            (try? String(contentsOfFile: touches, encoding: .utf8))?.contains("\"up\"") ?? false
        }
        let events = try String(contentsOfFile: touches, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let time = { (type: String) in events.first { $0["type"] as? String == type }?["t"] as? Double }
        let held = try XCTUnwrap(time("up")) - XCTUnwrap(time("down"))
        XCTAssertGreaterThan(held, 0.5, "the touch sounded before Enter: \(events)")
        XCTAssertLessThan(held, 1.0, "\(events)")
        XCTAssertTrue(try tmux.screen("play").contains("press Enter for the pad"), "still before Enter")
        try tmux(["send-keys", "-t", "play", "Enter"])
        try waitUntil("the pad") { try tmux.screen("play").contains("voices 0") }
        try tmux(["send-keys", "-t", "play", "q"])
        try waitUntil("play to exit") { try tmux.screen("play").contains("exit=0") }
    }
}
