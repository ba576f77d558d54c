// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation

/// `make lint` (scripts/check-layers.py) on a copy of the tree: silent on the tree as it
/// is, and each of its import rules names a planted offence by file and line.
final class LayerCheckTests: XCTestCase {
    var copy: URL!

    override func setUpWithError() throws {
        copy = try BinaryRunner.temporaryDirectory()
        let root = BinaryRunner.packageRoot
        for item in ["Package.swift", "scripts", "Sources", "Tests"] {
            try FileManager.default.copyItem(at: root.appendingPathComponent(item), to: copy.appendingPathComponent(item))
        }
        // The names of the C shims and toolchain modules, when a lint has run here (else
        // the copy's first run makes them: seconds).
        let cache = root.appendingPathComponent(".build/check-layers")
        if FileManager.default.fileExists(atPath: cache.path) {
            try FileManager.default.createDirectory(at: copy.appendingPathComponent(".build"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: cache, to: copy.appendingPathComponent(".build/check-layers"))
        }
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: copy)
    }

    /// Runs the copy's lint: its exit status and its findings without the prefix.
    func lint() throws -> (status: Int32, findings: [String]) {
        let r = try BinaryRunner.spawn(["sh", "-c", "python3 '\(copy.path)/scripts/check-layers.py' 2>&1"])
        let findings = r.output.split(separator: "\n").map { String($0.dropFirst($0.hasPrefix("layer check: ") ? 13 : 0)) }
        return (r.status, findings)
    }

    func edit(_ path: String, _ change: (String) -> String) throws {
        let url = copy.appendingPathComponent(path)
        let text = try String(contentsOf: url, encoding: .utf8)
        let changed = change(text)
        XCTAssertNotEqual(changed, text, "the plant changed nothing in \(path)")
        try changed.write(to: url, atomically: true, encoding: .utf8)
    }

    func testEachImportRuleNamesItsPlantedOffence() throws {
        let clean = try lint()
        XCTAssertEqual(clean.status, 0, clean.findings.joined(separator: "\n"))
        XCTAssertEqual(clean.findings, [])

        // Unused imports: a project module, a C shim, Glibc and Foundation.
        try edit("Sources/BendApp/Console.swift") { "import BendPeers\n" + $0 }
        try edit("Sources/BendAudio/RenderLoadMeter.swift") { "import CSndFile\n" + $0 }
        try edit("Sources/BendControl/InputSource.swift") { "import Foundation\nimport Glibc\n" + $0 }
        // A target the layer table names that Package.swift does not declare.
        try edit("scripts/check-layers.py") { $0.replacingOccurrences(of: "    \"BendWeb\": 3, \"BendMIDI\": 3,\n",
                                                                       with: "    \"BendWeb\": 3, \"BendMIDI\": 3, \"BendJack\": 3,\n") }
        // An input target importing the engine (and using it), declared in Package.swift.
        try edit("Sources/BendOSC/OSCSource.swift") { "import BendEngine\ntypealias PlantedEngineUse = Mixer\n" + $0 }
        try edit("Package.swift") {
            $0.replacingOccurrences(of: #".target(name: "BendOSC", dependencies: ["BendControl", "BendSystem", "CLO"]"#,
                                    with: #".target(name: "BendOSC", dependencies: ["BendControl", "BendEngine", "BendSystem", "CLO"]"#)
                .replacingOccurrences(of: "//   BendOSC → BendControl, BendSystem, CLO\n", with: "//   BendOSC → BendControl, BendEngine, BendSystem, CLO\n")
        }
        let planted = try lint()
        XCTAssertEqual(planted.status, 1)
        let package = try String(contentsOf: copy.appendingPathComponent("Package.swift"), encoding: .utf8)
        let oscLine = try XCTUnwrap(package.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains(#".target(name: "BendOSC""#) }) + 1
        let layersLine = try XCTUnwrap(try String(contentsOf: copy.appendingPathComponent("scripts/check-layers.py"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("\"BendJack\": 3") }) + 1
        XCTAssertEqual(Set(planted.findings), [
            "Sources/BendApp/Console.swift:1: import BendPeers is unused (no name BendPeers provides appears in the file), expected the line removed",
            "Sources/BendAudio/RenderLoadMeter.swift:1: import CSndFile is unused (no name CSndFile provides appears in the file), expected the line removed",
            "Sources/BendControl/InputSource.swift:1: import Foundation is unused (no name Foundation provides appears in the file), expected the line removed",
            "Sources/BendControl/InputSource.swift:2: import Glibc is unused (no name Glibc provides appears in the file), expected the line removed",
            "scripts/check-layers.py:\(layersLine): LAYERS names BendJack, which Package.swift does not declare, expected only its targets",
            "Sources/BendOSC/OSCSource.swift:1: BendOSC is an input target and imports BendEngine, expected what it reads of the engine through BendControl (InstrumentMeters), as every input source does",
            "Package.swift:\(oscLine): BendOSC is an input target and depends on BendEngine, expected no engine dependency (meters come through BendControl)",
        ], planted.findings.joined(separator: "\n"))
    }

    /// What counts as a use: a name inside a string's interpolation, an initialiser's
    /// label (Foundation's `String(format:)`), a member an extension adds (`.escaped`);
    /// not a name in a comment, nor a member whose name a module's type only has inside
    /// it (Glibc's `close` is not `.close()`).
    func testWhatCountsAsAUse() throws {
        try edit("Sources/BendApp/Console.swift") {
            "import BendPeers\nimport Foundation\n" + $0
                + "\nlet plantedName = \"\\(PeerProtocol.maxNameBytes)\"\nlet plantedFormat = String(format: \"%d\", 1)\n"
        }
        try edit("Sources/BendApp/ProgressLine.swift") { "import BendWeb\n// WebServer is only named in this comment\n" + $0 }
        try edit("Sources/BendApp/VersionInfo.swift") { "import BendSystem\n" + $0 + "\nlet plantedEscape = \"x\".escapedForPlanting\n" }
        try edit("Sources/BendSystem/UntrustedText.swift") {
            $0 + "\nextension String {\n    public var escapedForPlanting: String { self }\n}\n"
        }
        try edit("Sources/BendInstrument/DefaultTone.swift") { "import Glibc\n" + $0 + "\nfunc plantedClose(_ h: FileHandle) { try? h.close() }\n" }
        XCTAssertEqual(try lint().findings.sorted(), [
            "Sources/BendApp/ProgressLine.swift:1: import BendWeb is unused (no name BendWeb provides appears in the file), expected the line removed",
            "Sources/BendInstrument/DefaultTone.swift:1: import Glibc is unused (no name Glibc provides appears in the file), expected the line removed",
        ])
    }

    /// The core's rules, each planted once: a function of 85 lines and a type test in
    /// BendInstrument, a plugin shell importing the engine. Each is named with its file and
    /// line. (The licence-line rule reads `git ls-files`: the copy here is no repository.)
    func testTheCoresRulesNameTheirPlantedOffences() throws {
        let body = (0..<83).map { "    _ = \($0)" }.joined(separator: "\n")
        try edit("Sources/BendInstrument/DefaultTone.swift") {
            $0 + "\nfunc plantedLong() {\n" + body + "\n}\nfunc plantedQuestion(_ x: Any) -> Bool { x is String }\n"
        }
        try edit("Sources/BendLV2/LV2Log.swift") { $0 + "\nimport BendEngine\ntypealias PlantedMixer = Mixer\n" }
        let planted = try lint()
        XCTAssertEqual(planted.status, 1)
        let tone = try String(contentsOf: copy.appendingPathComponent("Sources/BendInstrument/DefaultTone.swift"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let long = try XCTUnwrap(tone.firstIndex { $0.hasPrefix("func plantedLong") }) + 1
        let question = try XCTUnwrap(tone.firstIndex { $0.hasPrefix("func plantedQuestion") }) + 1
        let log = try String(contentsOf: copy.appendingPathComponent("Sources/BendLV2/LV2Log.swift"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let engineImport = try XCTUnwrap(log.firstIndex { $0 == "import BendEngine" }) + 1
        for expected in [
            "Sources/BendInstrument/DefaultTone.swift:\(long): a function of 85 lines, expected at most 80 (split it into phases)",
            "Sources/BendInstrument/DefaultTone.swift:\(question): asks a concrete type (is String), expected a member of the protocol (InputSource, AudioOutput) that answers it",
            "Sources/BendLV2/LV2Log.swift:\(engineImport): BendLV2 is a plugin shell and imports BendEngine, expected what it needs of the instrument through BendInstrument's core (InstrumentCore, HostRender)",
        ] {
            XCTAssertTrue(planted.findings.contains(expected), "\(expected)\nnot in:\n\(planted.findings.joined(separator: "\n"))")
        }
    }
}
