// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendOSC
import Foundation

/// Collects an interpreter's events and checks them as the engine would see them:
/// a down for an id already down, or a move/up for an id not down, is a fault.
final class EventLog {
    var events: [ControlEvent] = []
    var down: [UInt32: (x: Double, y: Double)] = [:]
    var starts = 0
    var faults: [String] = []
    var lines: [String] = []
    var tilt: Double?

    func record(_ e: ControlEvent) {
        events.append(e)
        switch e {
        case let .touch(id, .down, x, y):
            if down[id] != nil { faults.append("down for \(id) already down") }
            down[id] = (x, y); starts += 1
            if !(0...1).contains(x) || !(0...1).contains(y) { faults.append("down outside the pad: \(x), \(y)") }
        case let .touch(id, .move, x, y):
            if down[id] == nil { faults.append("move for \(id) not down") }
            down[id] = (x, y)
            if !(0...1).contains(x) || !(0...1).contains(y) { faults.append("move outside the pad: \(x), \(y)") }
        case let .touch(id, .up, _, _):
            if down.removeValue(forKey: id) == nil { faults.append("up for \(id) not down") }
        case .pitched:
            faults.append("a pitched touch: OSC gives pad positions")
        case .sustain:
            faults.append("sustain: OSC has no sustain message")
        case .timbre:
            faults.append("a timbre: OSC gives none")
        case let .send(id, _, level):
            if down[id] == nil { faults.append("send for \(id) not down") }
            if !(0...1).contains(level) { faults.append("send level \(level)") }
        case let .tilt(t):
            if !(-1...1).contains(t) { faults.append("tilt \(t)") }
            tilt = t
        }
    }

    func interpreter(timeout: Double = 2, restTimeout: Double = OSCInterpreter.defaultRestTimeout) -> OSCInterpreter {
        OSCInterpreter(timeout: timeout, restTimeout: restTimeout, emit: { self.record($0) }, log: { self.lines.append($0) }, voices: { 7 })
    }

    /// Lines about `what`, and the lines they stand for (1 each, or N for a count of
    /// lines held back, "… [N more like this]").
    func counted(_ what: String) -> (lines: Int, standFor: Int) { countLines(lines, what) }
}

/// Lines about `what` among `lines`, and the lines they stand for (1 each, or N for a
/// count of lines held back, "… [N more like this]").
func countLines(_ lines: [String], _ what: String) -> (lines: Int, standFor: Int) {
    let mine = lines.filter { $0.contains(what) }
    return (mine.count, mine.reduce(0) { $0 + max(1, heldCount($1)) })
}

/// N of a line's " [N more like this]" (0 without one).
func heldCount(_ line: String) -> Int {
    guard let r = line.range(of: " [", options: .backwards), line.hasSuffix(" more like this]") else { return 0 }
    return Int(line[r.upperBound...].prefix { $0.isNumber }) ?? 0
}

/// The real-world OSC datagrams of ../shared/realworld/other.
enum RealWorldOSC {
    /// `$BENDSYNTH_REALWORLD/other`, else `../shared/realworld/other` beside the package.
    static var directory: URL {
        if let path = ProcessInfo.processInfo.environment["BENDSYNTH_REALWORLD"] {
            return URL(fileURLWithPath: path).appendingPathComponent("other")
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/realworld/other")
    }

    static func datagram(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func names(prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(prefix) && $0.hasSuffix(".osc") }.sorted()
    }
}

extension OSCInterpreter {
    /// Handles a byte array (tests).
    @discardableResult
    func feed(_ bytes: [UInt8], from sender: String = "127.0.0.1:5000", now: UInt64 = 0) -> [[UInt8]] {
        bytes.withUnsafeBytes { handle(datagram: $0, from: sender, now: now) }
    }
}

/// An OSC message's bytes (through liblo).
func osc(_ address: String, _ args: OSCValue...) -> [UInt8] { OSCEncoder.encode(address, args)! }
