import BendControl
import Foundation

/// `--scale NAME|FILE.scl`: a built-in scale or a Scala file.
enum ScaleOption {
    /// The scale `value` names: a file when it ends in `.scl`, holds a '/' or names an
    /// existing file; otherwise a built-in name.
    /// - Throws: `AppError.usage` for an unknown name; `AppError.input` naming the file,
    ///   line and what was expected for a file that does not parse or read.
    static func load(_ value: String) throws -> Scale {
        let isFile = value.hasSuffix(".scl") || value.contains("/") || FileManager.default.fileExists(atPath: value)
        guard isFile else {
            guard let scale = Scale.builtIn(value) else {
                let names = Scale.builtIns.map(\.name).joined(separator: ", ")
                throw AppError.usage("option '--scale': expected a Scala file (.scl), one of \(names), or edo:N (N equal divisions of the octave, 1…\(Scale.maximumEDO)); got '\(value)'")
            }
            return scale
        }
        guard let data = FileManager.default.contents(atPath: value) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: value, isDirectory: &isDirectory)
            throw AppError.input("\(value): " + (exists ? (isDirectory.boolValue ? "is a directory" : "cannot be read") : "no such file")
                                 + "; expected a Scala scale file (.scl)")
        }
        do { return try ScalaFile.parse(Array(data), path: value) } catch {
            throw AppError.input("\(error)")
        }
    }
}
