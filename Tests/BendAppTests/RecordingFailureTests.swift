// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest

/// Issue 38 item 5: `play --record` onto a disk that fills up. The failure shows on the
/// pad and in the log while play goes on, play exits 1, and the file kept opens with the
/// frames play said it kept. The disk is a 64 KiB tmpfs mounted in a mount namespace of
/// the test's own (`unshare -rm`), so the test needs no root.
final class RecordingFailureTests: XCTestCase {
    let tmux = Tmux("bendsynth-recfail")

    static var canMountTmpfs: Bool {
        (try? BinaryRunner.spawn(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]).status) == 0
    }

    func testFullDiskShowsOnThePadAndExitsOne() throws {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        guard Self.canMountTmpfs else { throw XCTSkip("cannot mount a tmpfs in a user namespace here") }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let small = dir.appendingPathComponent("small").path, kept = dir.appendingPathComponent("kept.wav").path
        let log = dir.appendingPathComponent("stderr.txt").path
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        // The file kept is copied out of the namespace once play ended.
        let inner = "mount -t tmpfs -o size=64k tmpfs \(small) && \(BinaryRunner.executable.path) play --no-config -d null "
            + "--record \(small)/take.wav; rc=$?; cp \(small)/take.wav \(kept); exit $rc"
        try tmux.start("play", columns: 120, rows: 30, "unshare -rm sh -c '\(inner)'", log: log)
        defer { try? tmux(["kill-server"]) }
        try waitUntil("the failure on the pad") { try tmux.screen("play").contains("kept") }
        let screen = try tmux.screen("play")
        let logged = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertFalse(logged.contains("exit="), "play goes on after the failure: \(logged)")
        let said = try XCTUnwrap(logged.split(separator: "\n").first { $0.contains("stopped") && $0.contains("kept") },
                                 "the log says so while play goes on: \(logged)")
        let words = said.split(separator: " ")
        let frames = try XCTUnwrap(words.indices.dropFirst().first { words[$0].hasPrefix("frames") }.flatMap { Int(words[$0 - 1]) })
        XCTAssertTrue(screen.contains("\(frames) frames"), "the pad shows the frames kept: \(screen)")
        XCTAssertTrue(said.contains("No space left on device"), String(said))
        let end = try quit(tmux, "play", log: log)
        XCTAssertTrue(end.contains("exit=1"), "a recording that failed exits 1: \(end)")
        let file = try WAVReader.read(kept)
        print("full disk: play said \(frames) frames kept; the kept WAV opens with \(file.frames) frames")
        XCTAssertGreaterThan(frames, 0)
        XCTAssertEqual(file.frames, frames, "the kept WAV opens with as many frames as play said")
    }
}
