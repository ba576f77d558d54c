import Foundation
import Glibc
import XCTest

/// Inputs that are not what a command expects, and inputs the command makes or finds
/// itself (the default shared key and web certificate made in the same run, the web
/// page's files): clear reasons with exit 2, and no output ever written over them.
final class InputFilesTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }
    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    var env: [String: String] { ["XDG_CONFIG_HOME": path("xdg"), "HOME": dir.path] }

    /// A folder or a device given as the script: exit 2 saying what it is (a folder made
    /// the MIDI sniffing trap: exit 132), and no output file.
    func testAFolderOrADeviceAsTheScriptIsRefused() throws {
        let cases: [([String], String)] = [
            (["render", dir.path, "-o", path("x.wav")], "\(dir.path): is a folder; expected a touch script (JSON Lines) or a MIDI file"),
            (["play", "--no-terminal", "--device", "null", "--script", dir.path], "\(dir.path): is a folder; expected a touch script"),
            (["render", "/dev/null", "-o", path("x.wav")], "/dev/null: is not a regular file (a device, a FIFO or a socket); expected a touch script"),
        ]
        for (args, message) in cases {
            let r = try BinaryRunner.run(args + ["--no-config"], environment: env, timeout: 30)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.wav")))
    }
}
