// SPDX-License-Identifier: GPL-3.0-or-later
import BendEvdev
import Foundation
import XCTest

/// The recordings of `realworld/evdev/` (LOG.md section A) and this target's fixtures.
enum Recordings {
    /// `$BENDSYNTH_REALWORLD`, else `../shared/realworld` beside the package.
    static var realworld: URL {
        if let path = ProcessInfo.processInfo.environment["BENDSYNTH_REALWORLD"] {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/realworld")
    }

    static var fixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    }

    /// Paths of the RW case `id` (one .evemu, or .desc + .events).
    static func paths(_ id: String) throws -> [String] {
        let folder = realworld.appendingPathComponent("evdev")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let mine = names.filter { $0.hasPrefix(id + "_") }
        if let e = mine.first(where: { $0.hasSuffix(".evemu") }) { return [folder.appendingPathComponent(e).path] }
        guard let d = mine.first(where: { $0.hasSuffix(".desc") }), let ev = mine.first(where: { $0.hasSuffix(".events") }) else {
            XCTFail("no recording \(id) in \(folder.path) (set BENDSYNTH_REALWORLD to the realworld folder)")
            throw CocoaError(.fileReadNoSuchFile)
        }
        return [folder.appendingPathComponent(d).path, folder.appendingPathComponent(ev).path]
    }

    static func load(_ id: String) throws -> EvemuRecording {
        try EvemuRecording.load(paths: paths(id))
    }

    static func fixture(_ name: String) throws -> EvemuRecording {
        try EvemuRecording.load(paths: [fixtures.appendingPathComponent(name).path])
    }
}

/// What a decoded touch sequence did.
struct TouchSummary {
    var downs = 0
    var ups = 0
    var maxAtOnce = 0
    var stillDown: Set<UInt32> = []
    var xs: [Double] = []
    var ys: [Double] = []
    var tilts: [Double] = []
    /// Up or move of a touch that is not down, or down of one that is.
    var inconsistencies = 0
    /// Times (s) of each up, by touch id.
    var upTimes: [UInt32: Double] = [:]
    var downTimes: [UInt32: Double] = [:]

    init(_ frames: [EvdevReplay.Frame]) {
        for f in frames {
            for e in f.events {
                switch e {
                case let .touch(id, .down, x, y):
                    if !stillDown.insert(id).inserted { inconsistencies += 1 }
                    downs += 1
                    xs.append(x); ys.append(y)
                    downTimes[id] = Double(f.micros) / 1e6
                case let .touch(id, .move, x, y):
                    if !stillDown.contains(id) { inconsistencies += 1 }
                    xs.append(x); ys.append(y)
                case let .touch(id, .up, _, _):
                    if stillDown.remove(id) == nil { inconsistencies += 1 }
                    ups += 1
                    upTimes[id] = Double(f.micros) / 1e6
                case .pitched, .sustain, .timbre, .send:
                    inconsistencies += 1  // evdev gives pad positions, no sustain (no pressure unless asked)
                case let .tilt(v):
                    tilts.append(v)
                }
            }
            maxAtOnce = max(maxAtOnce, stillDown.count)
        }
    }

    var allInRange: Bool { (xs + ys).allSatisfy { $0 >= 0 && $0 <= 1 && $0.isFinite } }
}

func decode(_ r: EvemuRecording, mapping: EvdevMapping = EvdevMapping(), releaseAtEnd: Bool = false) -> [EvdevReplay.Frame] {
    EvdevReplay.frames(device: r.device, events: r.events, mapping: mapping, releaseAtEnd: releaseAtEnd)
}
