import Foundation

/// A Scala file that cannot be read: the file and why ("no such file", "is a directory",
/// "cannot be read").
public struct ScalaReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason); expected a Scala scale file (.scl)" }
}

extension ScalaFile {
    /// Reads and parses the Scala scale file at `path` (`--scale FILE.scl`; a plugin's
    /// scale parameter).
    /// - Throws: `ScalaReadError` for a file that does not read; `ScalaFileError` (the
    ///   line and what was expected) for one that does not parse.
    /// - Thread: any but a render thread (it reads the file).
    public static func load(path: String) throws -> Scale {
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            throw ScalaReadError(path: path, reason: exists ? (isDirectory.boolValue ? "is a directory" : "cannot be read") : "no such file")
        }
        return try parse(Array(data), path: path)
    }
}
