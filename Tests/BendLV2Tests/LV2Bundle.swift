// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest

/// The plugin bundle under test: `make lv2` builds it once per test process (the static
/// release build is incremental; `make test` builds it before the tests run), into the
/// checkout's .build/lv2/bendsynth.lv2. LV2_PATH=`path` finds it and Debian's LV2 specs
/// (their classes and units: a host loads them too).
enum LV2Bundle {
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
    /// The folder holding bendsynth.lv2 (an LV2_PATH entry).
    static var folder: URL { packageRoot.appendingPathComponent(".build/lv2") }
    static var path: String { folder.path + ":/usr/lib/lv2" }
    static var bundle: URL { folder.appendingPathComponent("bendsynth.lv2") }
    static var sharedObject: URL { bundle.appendingPathComponent("bendsynth.so") }
    static let uri = "urn:bendsynth:lv2"
    /// The bendsynth executable built beside the tests (`render` of the same MIDI).
    static var bendsynth: URL {
        var dir = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("bendsynth")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir.deleteLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/bendsynth")
    }

    private static let built: Result<Void, Error> = Result {
        let r = try run(["make", "-s", "-C", packageRoot.path, "lv2"])
        guard r.status == 0 else { throw NSError(domain: "make lv2 failed (\(r.status)): \(r.output.suffix(2000))", code: Int(r.status)) }
    }

    /// Builds the bundle (once) and returns its folder.
    static func build() throws -> URL {
        try built.get()
        return bundle
    }

    /// Runs a command to completion (stdin /dev/null, stdout and stderr together).
    @discardableResult
    static func run(_ args: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
