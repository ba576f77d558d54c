// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Glibc

/// The input devices present: what each is and whether `auto` takes it.
///
/// - Thread: any non-real-time thread (opens device nodes briefly).
public enum EvdevDiscovery {
    public static let directory = "/dev/input"

    /// One event node.
    public struct Entry: Sendable {
        public var path: String
        /// The description, or why the node could not be opened.
        public var device: Result<EvdevDeviceDescription, EvdevOpenError>
        public var kind: EvdevDeviceKind? { try? EvdevDeviceKind.classify(device.get()) }
    }

    /// `eventN` nodes in `directory`, in number order.
    public static func eventNodes(in directory: String = directory) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if isEventNode(name) { names.append(name) }
        }
        return names.sorted { Int($0.dropFirst(5)) ?? 0 < Int($1.dropFirst(5)) ?? 0 }.map { directory + "/" + $0 }
    }

    static func isEventNode(_ name: String) -> Bool {
        name.hasPrefix("event") && name.count > 5 && name.dropFirst(5).allSatisfy(\.isNumber)
    }

    /// Every event node with its description (opened briefly, not grabbed).
    public static func list(in directory: String = directory) -> [Entry] {
        eventNodes(in: directory).map { path in
            do {
                let r = try EvdevReader(path: path, mapping: EvdevMapping())
                return Entry(path: path, device: .success(r.decoder.device))
            } catch let e as EvdevOpenError {
                return Entry(path: path, device: .failure(e))
            } catch {
                return Entry(path: path, device: .failure(EvdevOpenError(path: path, call: "open", code: EIO)))
            }
        }
    }

    /// Lines for `bendsynth devices`: name, kind, axes with range and resolution, or
    /// why the node is skipped or cannot be opened.
    public static func report(in directory: String = directory) -> String {
        var lines = ["Input devices (\(directory), for play --evdev):"]
        let entries = list(in: directory)
        if entries.isEmpty { lines.append("  none: no \(directory)/event* nodes (no input devices, or not visible here)") }
        for e in entries {
            switch e.device {
            case .failure(let error):
                lines.append("  \(e.path): \(error)")
            case .success(let d):
                let kind = EvdevDeviceKind.classify(d)
                lines.append("  \(e.path): \"\(UntrustedText.escaped(d.name))\" (\(d.idText)) — \(kind.summary)" + (kind.takenByAuto ? " — taken by --evdev auto" : ""))
                if case .skipped = kind { continue }
                lines.append("    " + axesText(d))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// "x 0…799, y 0…479 (no resolution)" or with units/mm (units/g for accelerometers).
    public static func axesText(_ d: EvdevDeviceDescription) -> String {
        let kind = EvdevDeviceKind.classify(d)
        let axes: [(String, UInt16)]
        switch kind {
        case .accelerometer: axes = [("x", EvdevCode.absX), ("y", EvdevCode.absY), ("z", EvdevCode.absZ)]
        case .touch(_, .single):
            let (x, y) = EvdevQuirks.singleTouchAxes(d)
            axes = [("x", x), ("y", y)]
        default: axes = [("x", EvdevCode.absMTPositionX), ("y", EvdevCode.absMTPositionY)]
        }
        let unit = kind == .accelerometer ? "units/g" : "units/mm"
        var parts = axes.compactMap { name, code in
            d.absolute[code].map { a in "\(name) \(a.minimum)…\(a.maximum)" + (a.resolution > 0 ? " (\(a.resolution) \(unit))" : " (no resolution)") }
        }
        if let slots = d.absolute[EvdevCode.absMTSlot] { parts.append("\(slots.maximum + 1) slots") }
        return parts.joined(separator: ", ")
    }
}
