import BendControl
import Foundation

/// `--scale NAME|FILE.scl`: a built-in scale or a Scala file; `--kbm FILE.kbm`: a Scala
/// keyboard mapping.
enum ScaleOption {
    /// The scale `value` names: a file when it ends in `.scl`, holds a '/' or names an
    /// existing file; otherwise a built-in name.
    /// - Throws: `AppError.usage` for an unknown name; `AppError.input` naming the file,
    ///   line and what was expected for a file that does not parse or read.
    static func load(_ value: String) throws -> Scale {
        if value.lowercased().hasSuffix(".kbm") {
            throw AppError.usage("option '--scale': '\(value)' is a Scala keyboard mapping (.kbm), not a scale; give it with --kbm")
        }
        let isFile = value.hasSuffix(".scl") || value.contains("/") || FileManager.default.fileExists(atPath: value)
        guard isFile else {
            guard let scale = Scale.builtIn(value) else {
                let names = Scale.builtIns.map(\.name).joined(separator: ", ")
                throw AppError.usage("option '--scale': expected a Scala file (.scl), one of \(names), or edo:N (N equal divisions of the octave, 1…\(Scale.maximumEDO)); got '\(value)'")
            }
            return scale
        }
        do { return try ScalaFile.load(path: value) } catch {
            throw AppError.input("\(error)")
        }
    }

    /// `--kbm FILE.kbm`: a Scala keyboard mapping.
    /// - Throws: `AppError.usage` for a scale (.scl) given to it; `AppError.input` naming
    ///   the file, line and what was expected for a file that does not parse or read.
    static func loadKeyboardMap(_ value: String) throws -> KeyboardMap {
        if value.lowercased().hasSuffix(".scl") {
            throw AppError.usage("option '--kbm': '\(value)' is a Scala scale (.scl), not a keyboard mapping; give it with --scale")
        }
        guard let data = FileManager.default.contents(atPath: value) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: value, isDirectory: &isDirectory)
            throw AppError.input("\(value): " + (exists ? (isDirectory.boolValue ? "is a directory" : "cannot be read") : "no such file")
                                 + "; expected a Scala keyboard mapping (.kbm)")
        }
        do { return try KeyboardMap.parse(Array(data), path: value) } catch {
            throw AppError.input("\(error)")
        }
    }
}
