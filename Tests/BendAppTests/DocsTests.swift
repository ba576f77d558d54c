// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation
@testable import BendApp

/// The documentation against the code: docs/OPTIONS.md's table is the one the command
/// table makes, every option is in the man page and OPTIONS.md, and every relative link
/// of README.md and docs/*.md reaches its file (and heading).
final class DocsTests: XCTestCase {
    var root: URL { BinaryRunner.packageRoot }

    /// docs/OPTIONS.md holds exactly `OptionsDocument.table` between its markers.
    /// `make docs` (BENDSYNTH_UPDATE_DOCS=1) rewrites it.
    func testOptionsDocumentIsMadeFromTheCommandTable() throws {
        let url = root.appendingPathComponent(OptionsDocument.path)
        let text = try String(contentsOf: url, encoding: .utf8)
        guard let b = text.range(of: OptionsDocument.begin), let e = text.range(of: OptionsDocument.end),
              b.upperBound <= e.lowerBound else {
            return XCTFail("\(OptionsDocument.path) lacks the markers \(OptionsDocument.begin) … \(OptionsDocument.end)")
        }
        if ProcessInfo.processInfo.environment["BENDSYNTH_UPDATE_DOCS"] == "1" {
            try text.replacingCharacters(in: b.lowerBound..<e.upperBound, with: OptionsDocument.table)
                .write(to: url, atomically: true, encoding: .utf8)
            return
        }
        XCTAssertEqual(String(text[b.lowerBound..<e.upperBound]), OptionsDocument.table,
                       "\(OptionsDocument.path)'s table is out of date: run 'make docs'")
    }

    /// Every option of every command (and of `bendsynth` itself) is in the command's
    /// section of the man page the binary prints, and in a row of docs/OPTIONS.md that
    /// names the command.
    func testEveryOptionIsInTheManPageAndTheOptionsDocument() throws {
        let r = try BinaryRunner.run(["--man-page"])
        XCTAssertEqual(r.status, 0)
        let man = r.stdout
        let doc = try String(contentsOf: root.appendingPathComponent(OptionsDocument.path), encoding: .utf8)
        // Rows of the table: option cell → commands cell.
        let rows: [(option: String, commands: String)] = doc.split(separator: "\n").compactMap { line in
            let cells = line.components(separatedBy: " | ")
            guard line.hasPrefix("| `"), cells.count >= 3 else { return nil }
            return (cells[0], cells[1])
        }
        XCTAssertGreaterThan(rows.count, 50)
        func inDocument(_ long: String, command: String?) -> Bool {
            rows.contains { row in
                row.option.range(of: #"--\#(NSRegularExpression.escapedPattern(for: long))([ `]|$)"#, options: .regularExpression) != nil
                    && (command.map { row.commands.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.contains($0) } ?? row.commands.hasPrefix("none")
                        || row.commands == "every command")
            }
        }
        func roff(_ long: String) -> String { "\\fB\\-\\-" + ManPage.escape(long) + "\\fR" }
        var checked = 0
        let top = man.range(of: ".SH OPTIONS").map { man[$0.upperBound...] }.map { $0[..<($0.range(of: ".SH COMMANDS")?.lowerBound ?? $0.endIndex)] }
        for spec in CommandTable.topSpecs where spec.long != "help" {
            XCTAssertTrue(top?.contains(roff(spec.long)) ?? false, "bendsynth --\(spec.long) is not in the man page's OPTIONS")
            XCTAssertTrue(inDocument(spec.long, command: nil), "bendsynth --\(spec.long) is not in \(OptionsDocument.path)")
            checked += 1
        }
        for c in CommandTable.all {
            let start = try XCTUnwrap(man.range(of: "\n.SS \(c.name)\n"), "no man page section for \(c.name)").upperBound
            let section = man[start..<(man.range(of: "\n.S", range: start..<man.endIndex)?.lowerBound ?? man.endIndex)]
            for spec in c.specs where spec.long != "help" {
                XCTAssertTrue(section.contains(roff(spec.long)), "\(c.name) --\(spec.long) is not in the man page's section for \(c.name)")
                XCTAssertTrue(inDocument(spec.long, command: c.name), "\(c.name) --\(spec.long) is not in \(OptionsDocument.path)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 90)
    }

    /// Every relative link in README.md and docs/*.md reaches a file, and an `#anchor`
    /// a heading of its file (GitHub's anchor rule: `MarkdownDocument.anchor`).
    func testEveryRelativeLinkResolves() throws {
        let docs = root.appendingPathComponent("docs")
        let files = [root.appendingPathComponent("README.md")]
            + (try FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil))
                .filter { $0.pathExtension == "md" }.sorted { $0.path < $1.path }
        XCTAssertGreaterThan(files.count, 10)
        var parsed: [String: MarkdownDocument] = [:]
        func document(_ url: URL) throws -> MarkdownDocument {
            let key = url.standardizedFileURL.path
            if let d = parsed[key] { return d }
            let d = try MarkdownDocument(url: url)
            parsed[key] = d
            return d
        }
        var checked = 0
        for file in files {
            let doc = try document(file)
            let name = file.path.replacingOccurrences(of: root.path + "/", with: "")
            for link in doc.links {
                let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let path = parts[0].removingPercentEncoding ?? parts[0]
                let target = path.isEmpty ? file : file.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
                checked += 1
                guard FileManager.default.fileExists(atPath: target.path) else {
                    XCTFail("\(name):\(link.line): link '\(link.target)': no file \(target.path)")
                    continue
                }
                guard parts.count == 2 else { continue }
                guard target.pathExtension == "md" else {
                    XCTFail("\(name):\(link.line): link '\(link.target)': an anchor into a file that is not Markdown")
                    continue
                }
                let anchors = try document(target).anchors
                XCTAssertTrue(anchors.contains(parts[1]), "\(name):\(link.line): link '\(link.target)': no heading with anchor '\(parts[1])' in \(target.lastPathComponent) (it has: \(anchors.sorted().joined(separator: ", ")))")
            }
        }
        XCTAssertGreaterThan(checked, 40)
    }

    /// Every source file docs/DESIGN.md names exists, so its walks and tables stay true
    /// when a file is folded, moved or renamed; a wrong name (as `Sustain.swift` once was)
    /// is caught.
    func testEverySourceFileTheDesignNamesExists() throws {
        let text = try String(contentsOf: root.appendingPathComponent("docs/DESIGN.md"), encoding: .utf8)
        let names = Self.swiftFileNames(in: text)
        XCTAssertGreaterThan(names.count, 80)
        XCTAssertEqual(missingSourceFiles(names), [], "docs/DESIGN.md names files that are not under Sources/")
        let planted = Self.swiftFileNames(in: "sustain `Sustain.swift`, `BendControl/TouchGate+Sustain.swift`, `BendApp/ScriptFile.swift`, `Package.swift`")
        XCTAssertEqual(planted, ["Sustain.swift", "BendControl/TouchGate+Sustain.swift", "BendApp/ScriptFile.swift", "Package.swift"])
        XCTAssertEqual(missingSourceFiles(planted), ["Sustain.swift", "BendApp/ScriptFile.swift"])
    }

    /// `Name.swift` and `Folder/Name.swift` as the text names them, each once, in order.
    static func swiftFileNames(in text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"(?:[A-Za-z0-9_-]+/)*[A-Za-z0-9_+]+\.swift\b"#)
        var seen = Set<String>()
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { m in
            let name = String(text[Range(m.range, in: text)!])
            let path = name.hasPrefix("Sources/") ? String(name.dropFirst("Sources/".count)) : name
            return seen.insert(path).inserted ? path : nil
        }
    }

    /// Of `names`, those that are no file: `Folder/Name.swift` under Sources/ (or the
    /// package's root), a bare `Name.swift` in any folder of Sources/ (or at the root).
    func missingSourceFiles(_ names: [String]) -> [String] {
        let sources = root.appendingPathComponent("Sources")
        let files = (FileManager.default.enumerator(atPath: sources.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }
        let fileNames = Set(files.map { String($0.split(separator: "/").last!) })
        return names.filter { name in
            if FileManager.default.fileExists(atPath: root.appendingPathComponent(name).path) { return false }
            return name.contains("/") ? !files.contains(name) : !fileNames.contains(name)
        }
    }

    /// GitHub's anchors, on headings of the kinds the docs use.
    func testAnchorsFollowGitHubsRule() {
        XCTAssertEqual(MarkdownDocument.anchor("How `hold` rounds"), "how-hold-rounds")
        XCTAssertEqual(MarkdownDocument.anchor("The phone's pad: touch → engine queue"), "the-phones-pad-touch--engine-queue")
        XCTAssertEqual(MarkdownDocument.anchor("Load: the soak"), "load-the-soak")
        XCTAssertEqual(MarkdownDocument.anchor("MIDI and MPE through JACK"), "midi-and-mpe-through-jack")
        XCTAssertEqual(MarkdownDocument.anchor("A [linked](x.md) heading_2"), "a-linked-heading_2")
        XCTAssertEqual(MarkdownDocument.headingText("## Title ##"), "Title")
        XCTAssertNil(MarkdownDocument.headingText("#hashtag"))
        XCTAssertEqual(MarkdownDocument.withoutCodeSpans("see `[x](y)` and [a](b)"), "see  and [a](b)")
    }
}
