// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendInput
import Foundation
import XCTest

/// The real-world byte streams of `realworld/terminal/` (LOG.md section C).
enum RealWorld {
    /// `$BENDSYNTH_REALWORLD`, else `../shared/realworld` beside the package.
    static var folder: URL {
        if let path = ProcessInfo.processInfo.environment["BENDSYNTH_REALWORLD"] {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/realworld")
    }

    static func terminal(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
        let url = folder.appendingPathComponent("terminal/" + name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            XCTFail("cannot read \(url.path) (set BENDSYNTH_REALWORLD to the realworld folder)", file: file, line: line)
            throw CocoaError(.fileReadNoSuchFile)
        }
        return [UInt8](data)
    }
}

// Shorthands for expected events.
func mouse(_ kind: MouseKind, _ button: MouseButton?, _ column: Int, _ row: Int) -> TerminalEvent {
    .mouse(MouseReport(kind, button, column: column, row: row))
}
func key(_ k: TerminalKey, _ modifiers: KeyModifiers = [], _ kind: KeyEventKind = .press) -> TerminalEvent {
    .key(KeyEvent(k, modifiers: modifiers, kind: kind))
}
func char(_ c: Unicode.Scalar, _ modifiers: KeyModifiers = [], _ kind: KeyEventKind = .press) -> TerminalEvent {
    key(.char(c), modifiers, kind)
}

/// Feeds all of `bytes` at time 0.
func decode(_ bytes: [UInt8], decoder: TerminalDecoder = TerminalDecoder()) -> [TerminalEvent] {
    var d = decoder
    return d.feed(bytes, at: 0)
}

/// Feeds `bytes` one byte per read, all at time 0 (every possible split point).
func decodeBytewise(_ bytes: [UInt8]) -> [TerminalEvent] {
    var d = TerminalDecoder()
    return bytes.flatMap { d.feed([$0], at: 0) }
}

/// Touch downs in `events` (the mouse's and the keys').
func downs(_ events: [ControlEvent]) -> Int {
    events.filter { $0.touchPhase?.phase == .down }.count
}

/// Touches still down after `events`.
func held(_ events: [ControlEvent]) -> Set<UInt32> {
    var s = Set<UInt32>()
    for e in events {
        if let (id, phase) = e.touchPhase {
            if phase == .down { s.insert(id) } else if phase == .up { s.remove(id) }
        }
    }
    return s
}

/// The event of letter key `letter` going down or up on `layout` (the pad's default: the
/// chromatic scale on A4).
func keyEvent(_ letter: Unicode.Scalar, _ phase: TouchPhase, layout: KeyLayout = .standard) -> ControlEvent {
    let key = layout.key(letter)!
    return .pitched(id: TerminalPad.touchID(forKey: letter), phase: phase, ratio: key.ratio, gain: KeyLayout.gain, y: KeyLayout.gain)
}

/// An 80×24 terminal's pad.
let pad80x24 = TerminalScreen.layout(columns: 80, rows: 24)
