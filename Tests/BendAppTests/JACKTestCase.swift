// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// The JACK end-to-end tests' common part: a private jackd per test (dummy driver,
/// 48 kHz, 64-frame periods), a temporary directory, and `bendsynth play` started in
/// the background.
class JACKTestCase: XCTestCase {
    var dir: URL!
    var server: JACKTestServer?

    override func setUpWithError() throws {
        guard JACKTestServer.installed else { throw XCTSkip("jackd (Debian jackd2) is not installed; `make test` installs it") }
        dir = try BinaryRunner.temporaryDirectory()
        server = try JACKTestServer()
    }

    override func tearDown() {
        server?.stop()
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    func write(_ text: String, _ name: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Starts `bendsynth play` with `arguments`; its pid and the path of its stderr.
    func startPlay(_ arguments: [String]) throws -> (pid: pid_t, log: String) {
        let log = dir.appendingPathComponent("play-\(UUID().uuidString).log").path
        return (try Spawn.start([BinaryRunner.executable.path, "play"] + arguments, output: log), log)
    }

    /// A file's text, bytes that are not UTF-8 shown as U+FFFD (libjack's messages can hold
    /// them; a strict read gave "" and hid what play said).
    func text(_ path: String) -> String {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

}
