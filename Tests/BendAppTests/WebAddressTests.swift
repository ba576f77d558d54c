// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import XCTest

/// `play --web` in a terminal (tmux) draws the address's QR code with colour escapes that
/// the terminal obeys: the pane's cells, drawn as a dark-themed terminal draws them
/// (default text light on black, the code's own colours where it sets them), are read
/// back by a QR decoder (zbar's `zbarimg`) as the address printed above the code.
final class WebQRCodeTests: XCTestCase {
    let tmux = Tmux("bendsynth-qr-test")

    func testTheQRCodeInATerminalDecodesToThePrintedAddress() throws {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg") else { throw XCTSkip("zbar-tools is not installed") }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("log.txt").path
        // Standard error is the pane (the code is drawn only on a terminal); no pad.
        try tmux(["new-session", "-d", "-s", "qr", "-x", "120", "-y", "60",
                  "\(BinaryRunner.executable.path) play -d null --no-terminal --web 127.0.0.1:0; echo exit=$? >\(log); sleep 30"])
        defer { _ = try? tmux(["kill-server"]) }
        // The address, then the code's rows, written at once: done when the pane stops changing.
        var last = ""
        try waitUntil("the address and the code") {
            let now = try tmux(["capture-pane", "-e", "-N", "-p", "-t", "qr"])
            defer { last = now }
            return now.contains("http://") && now.components(separatedBy: "\n").count > 12 && now == last
        }
        let styled = try tmux(["capture-pane", "-e", "-N", "-p", "-t", "qr"])
        let url = try XCTUnwrap(try tmux.screen("qr").components(separatedBy: "\n").first { $0.hasPrefix("http://") }, styled)
        XCTAssertFalse(styled.contains("\\x1b"), "no escape written out as text: \(styled)")

        let image = dir.appendingPathComponent("pane.pgm")
        try TerminalCells.parse(styled).pgm(scale: 4).write(to: image)
        let (status, decoded) = try BinaryRunner.spawn(["zbarimg", "--raw", "-q", image.path])
        XCTAssertEqual(status, 0, "zbarimg found no code in the pane's rendering")
        XCTAssertEqual(decoded.trimmingCharacters(in: .whitespacesAndNewlines), url.trimmingCharacters(in: .whitespaces))
        try tmux(["send-keys", "-t", "qr", "C-c"])
        try waitUntil("play to exit") { (try? String(contentsOfFile: log, encoding: .utf8))?.contains("exit=") ?? false }
    }
}

/// Without the terminal pad, `play --web` prints its address on standard output too (a
/// script reads it there), the same line as on standard error.
final class WebAddressOutputTests: XCTestCase {
    func testTheAddressIsOnStandardOutputWithoutThePad() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.txt").path, err = dir.appendingPathComponent("err.txt").path
        FileManager.default.createFile(atPath: out, contents: nil)
        FileManager.default.createFile(atPath: err, contents: nil)
        let p = Process()
        p.executableURL = BinaryRunner.executable
        p.arguments = ["play", "-d", "null", "--no-terminal", "--web", "127.0.0.1:0"]
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        p.standardOutput = FileHandle(forWritingAtPath: out)
        p.standardError = FileHandle(forWritingAtPath: err)
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }
        func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        try waitUntil("the address on standard output") { text(out).contains("\n") || !p.isRunning }
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, text(err))
        let printed = text(out).split(separator: "\n").map(String.init)
        XCTAssertEqual(printed.count, 1, text(out))
        XCTAssertTrue(printed.first?.hasPrefix("http://127.0.0.1:") ?? false, text(out))
        XCTAssertTrue(text(err).split(separator: "\n").map(String.init).contains(printed.first ?? "?"), "the same line as on stderr: \(text(err))")
    }
}

/// A terminal's cells from `tmux capture-pane -e`: each character with the grey level
/// (0 black … 255 white) of its foreground and background, as a dark theme shows them
/// (default foreground light grey, default background black).
struct TerminalCells {
    struct Cell { var character: Character; var foreground: UInt8; var background: UInt8 }
    var rows: [[Cell]]

    static let defaultForeground: UInt8 = 210, defaultBackground: UInt8 = 0

    /// Grey level of SGR colour `code` (30…37, 90…97 as a foreground; the same minus 10
    /// would be a background's, given here as the foreground code).
    static func grey(_ code: Int) -> UInt8 {
        switch code {
        case 30: 0
        case 37: 190
        case 90: 100
        case 97: 255
        default: 128  // colours: mid grey, neither black nor white
        }
    }

    static func parse(_ text: String) -> TerminalCells {
        var rows: [[Cell]] = []
        var fg = defaultForeground, bg = defaultBackground, inverse = false
        for line in text.components(separatedBy: "\n") {
            var row: [Cell] = []
            var scalars = Array(line.unicodeScalars)[...]
            while let s = scalars.first {
                scalars = scalars.dropFirst()
                guard s == "\u{1B}" else {
                    row.append(Cell(character: Character(s), foreground: inverse ? bg : fg, background: inverse ? fg : bg))
                    continue
                }
                // CSI parameters … final byte; only SGR (m) matters.
                guard scalars.first == "[" else { continue }
                scalars = scalars.dropFirst()
                var parameters = ""
                while let p = scalars.first, !(0x40...0x7E).contains(p.value) { parameters.unicodeScalars.append(p); scalars = scalars.dropFirst() }
                let final = scalars.first
                scalars = scalars.dropFirst()
                guard final == "m" else { continue }
                let codes = parameters.isEmpty ? [0] : parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
                var i = 0
                while i < codes.count {
                    let c = codes[i]
                    switch c {
                    case 0: fg = defaultForeground; bg = defaultBackground; inverse = false
                    case 7: inverse = true
                    case 27: inverse = false
                    case 30...37, 90...97: fg = grey(c)
                    case 39: fg = defaultForeground
                    case 40...47, 100...107: bg = grey(c - 10)
                    case 49: bg = defaultBackground
                    case 38, 48: i += codes.count > i + 1 && codes[i + 1] == 5 ? 2 : 4  // 256 or RGB: skipped
                    default: break
                    }
                    i += 1
                }
            }
            rows.append(row)
        }
        return TerminalCells(rows: rows)
    }

    /// The cells as a greyscale image (PGM): each cell 2 modules high (its top and
    /// bottom half, as the half blocks draw them), `scale` pixels a module; any other
    /// character is drawn as its background.
    func pgm(scale: Int) -> Data {
        let columns = rows.map(\.count).max() ?? 0
        let width = columns * scale, height = rows.count * 2 * scale
        var pixels = [UInt8](repeating: Self.defaultBackground, count: width * height)
        for (r, row) in rows.enumerated() {
            for (c, cell) in row.enumerated() {
                let (top, bottom): (UInt8, UInt8)
                switch cell.character {
                case "█": (top, bottom) = (cell.foreground, cell.foreground)
                case "▀": (top, bottom) = (cell.foreground, cell.background)
                case "▄": (top, bottom) = (cell.background, cell.foreground)
                default: (top, bottom) = (cell.background, cell.background)
                }
                for half in 0..<2 {
                    for y in 0..<scale {
                        for x in 0..<scale {
                            pixels[((r * 2 + half) * scale + y) * width + c * scale + x] = half == 0 ? top : bottom
                        }
                    }
                }
            }
        }
        return Data("P5\n\(width) \(height)\n255\n".utf8) + Data(pixels)
    }
}
