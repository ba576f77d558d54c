// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Foundation

/// A Scala file that cannot be read: the file and why ("no such file", "is a directory",
/// "cannot be read").
public struct ScalaReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    /// What the file should have been: "a Scala scale file (.scl)", "a Scala keyboard mapping (.kbm)".
    public var expected = "a Scala scale file (.scl)"
    public var description: String { "\(path): \(reason); expected \(expected)" }
}

extension ScalaFile {
    /// Reads and parses the Scala scale file at `path` (`--scale FILE.scl`; a plugin's
    /// scale parameter).
    /// - Throws: `ScalaReadError` for a file that does not read; `ScalaFileError` (the
    ///   line and what was expected) for one that does not parse.
    /// - Thread: any but a render thread (it reads the file).
    public static func load(path: String) throws -> Scale {
        try parse(Array(try contents(path, expected: "a Scala scale file (.scl)")), path: path)
    }

    static func contents(_ path: String, expected: String) throws(ScalaReadError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            throw ScalaReadError(path: path, reason: exists ? (isDirectory.boolValue ? "is a directory" : "cannot be read") : "no such file",
                                 expected: expected)
        }
        return data
    }
}

extension AbletonScale {
    /// Reads and parses the Ableton scale file at `path` (`--scale FILE.ascl`).
    /// - Throws: `InstrumentError(.input)` naming the file, line and what was expected
    ///   for a file that does not parse or read.
    /// - Thread: any but a render thread (it reads the file).
    public static func load(path: String) throws -> AbletonScale {
        do { return try parse(Array(try ScalaFile.contents(path, expected: "an Ableton scale file (.ascl)")), path: path) } catch {
            throw InstrumentError(.input, "\(error)")
        }
    }

    /// True for a name that ends in `.ascl` (any case): an Ableton scale file.
    public static func names(_ value: String) -> Bool { value.lowercased().hasSuffix(".ascl") }

    /// The scale `value` names (`Scale.load(nameOrFile:)`) and, for an Ableton `.ascl`,
    /// the keys and reference pitch it carries (`keyboardMap`; nil for any other): what
    /// `--scale` and the LV2 plugin's scale file both read.
    /// - Throws: what `Scale.load(nameOrFile:)` and `load(path:)` throw.
    public static func scaleAndKeys(nameOrFile value: String) throws -> (scale: Scale, keys: KeyboardMap?) {
        guard names(value) else { return (try Scale.load(nameOrFile: value), nil) }
        let ascl = try load(path: value)
        return (ascl.scale, ascl.keyboardMap)
    }
}

extension Scale {
    /// The scale `value` names (`--scale NAME|FILE.scl`): a Scala file when it ends in
    /// `.scl`, holds a '/' or names an existing file; otherwise a built-in name.
    /// - Throws: `UsageError` for an unknown name or a keyboard mapping (.kbm);
    ///   `InstrumentError(.input)` naming the file, line and what was expected for a file
    ///   that does not parse or read.
    public static func load(nameOrFile value: String) throws -> Scale {
        if value.lowercased().hasSuffix(".kbm") {
            throw UsageError("option '--scale': '\(value)' is a Scala keyboard mapping (.kbm), not a scale; give it with --kbm")
        }
        let isFile = value.hasSuffix(".scl") || AbletonScale.names(value) || value.contains("/") || FileManager.default.fileExists(atPath: value)
        guard isFile else {
            guard let scale = Scale.builtIn(value) else {
                let names = Scale.builtIns.map(\.name).joined(separator: ", ")
                throw UsageError("option '--scale': expected a Scala file (.scl), one of \(names), or edo:N (N equal divisions of the octave, 1…\(Scale.maximumEDO)); got '\(value)'")
            }
            return scale
        }
        do { return try ScalaFile.load(path: value) } catch { throw InstrumentError(.input, "\(error)") }
    }
}

extension KeyboardMap {
    /// The Scala keyboard mapping at `path` (`--kbm FILE.kbm`).
    /// - Throws: `UsageError` for a scale (.scl, .ascl) given as one; `InstrumentError(.input)`
    ///   naming the file, line and what was expected for a file that does not parse or read.
    public static func load(path: String) throws -> KeyboardMap {
        if path.lowercased().hasSuffix(".scl") {
            throw UsageError("option '--kbm': '\(path)' is a Scala scale (.scl), not a keyboard mapping; give it with --scale")
        }
        if AbletonScale.names(path) {
            throw UsageError("option '--kbm': '\(path)' is an Ableton scale (.ascl), not a keyboard mapping; give it with --scale")
        }
        do { return try parse(Array(try ScalaFile.contents(path, expected: "a Scala keyboard mapping (.kbm)")), path: path) } catch {
            throw InstrumentError(.input, "\(error)")
        }
    }
}
