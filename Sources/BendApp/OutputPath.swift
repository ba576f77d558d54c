import Foundation
import Glibc

/// The one check of a file a command will write (`render -o`, `replay -o`/`--touches`,
/// `play --record*`), made before any work, so every command answers a bad output path
/// alike: exit 2 naming the option and the path. Failures while writing stay exit 1.
enum OutputPath {
    /// - Throws: `AppError.input` when `path` is a folder or a device, or its folder is
    ///   missing or not writable. `-` (standard output) passes.
    static func check(_ path: String, option: String, command: String) throws {
        guard path != "-" else { return }
        var info = stat()
        if stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
            let what = (info.st_mode & S_IFMT) == S_IFDIR ? "a folder" : "not a regular file"
            throw AppError.input("\(command): \(option) '\(path)' is \(what); expected a file name")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw AppError.input("\(command): \(option) '\(path)': the folder '\(folder)' does not exist")
        }
        guard access(folder, W_OK) == 0 else {
            throw AppError.input("\(command): \(option) '\(path)': cannot write in the folder '\(folder)' (\(String(cString: strerror(errno))))")
        }
    }
}
