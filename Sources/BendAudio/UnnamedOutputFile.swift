// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// The file a render writes before it is given its name: an unnamed file in the output's
/// folder (`O_TMPFILE`), linked in under a name only once it is complete, so a render
/// killed with SIGKILL leaves nothing in the folder. Where the folder's file system has
/// no `O_TMPFILE`, a named `.NAME.PID.N.tmp` instead — and the stale ones of earlier
/// renders of the same NAME whose process is gone are removed first.
/// - Thread: one thread at a time.
final class UnnamedOutputFile {
    /// The open descriptor the writer writes (read-write: libsndfile seeks back to
    /// finish the header).
    let descriptor: Int32
    /// The named temporary file written instead (no `O_TMPFILE` here), nil when unnamed.
    let temporaryPath: String?
    private let folder: String
    private let name: String
    /// The descriptor was closed (published or discarded).
    private var closed = false

    /// `O_TMPFILE` as glibc defines it (`__O_TMPFILE | O_DIRECTORY`): Swift's Glibc
    /// module is built without `_GNU_SOURCE` and leaves it out. 020000000 is its value on
    /// every Linux architecture but alpha, parisc and sparc, which Swift does not target.
    static let tmpfileFlag: Int32 = 0o20000000 | O_DIRECTORY

    /// Opens the file that will become `target`.
    /// - Throws: `WAVFileError` naming `displayPath` when neither can be created.
    init(target: String, displayPath: String) throws {
        let slash = target.lastIndex(of: "/")
        folder = slash.map { String(target[..<$0]).isEmpty ? "/" : String(target[..<$0]) } ?? "."
        name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        let fd = open(folder, Self.tmpfileFlag | O_RDWR | O_CLOEXEC, 0o666)
        if fd >= 0 {
            descriptor = fd
            temporaryPath = nil
            return
        }
        Self.removeStale(folder: folder, name: name)
        let path = folder + "/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let named = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard named >= 0 else {
            throw WAVFileError(path: displayPath, call: "open", reason: String(cString: strerror(errno)))
        }
        descriptor = named
        temporaryPath = path
    }

    /// Gives the complete file the name `target`, replacing a file there atomically: the
    /// unnamed file is linked in as a temporary name (`linkat` of /proc/self/fd/N) and
    /// renamed over `target`. Closes the descriptor.
    /// - Throws: `WAVFileError` naming `displayPath` with the failing call ("linkat", "rename").
    func publish(as target: String, displayPath: String) throws {
        defer { closeOnce() }
        var from = temporaryPath
        if from == nil {
            let link = folder + "/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
            guard linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, link, AT_SYMLINK_FOLLOW) == 0 else {
                throw WAVFileError(path: displayPath, call: "linkat", reason: String(cString: strerror(errno)))
            }
            from = link
        }
        guard let from, rename(from, target) == 0 else {
            let code = errno
            if let from { unlink(from) }
            throw WAVFileError(path: displayPath, call: "rename", reason: String(cString: strerror(code)))
        }
    }

    /// Drops the file unwritten (a failed render): the unnamed file vanishes with its
    /// descriptor, a named one is removed.
    func discard() {
        guard !closed else { return }
        closeOnce()
        if let temporaryPath { unlink(temporaryPath) }
    }

    private func closeOnce() {
        guard !closed else { return }
        closed = true
        close(descriptor)
    }

    /// Removes `.NAME.PID.N.tmp` files in `folder` left by renders of `name` whose
    /// process no longer exists (killed before they could clean up).
    static func removeStale(folder: String, name: String) {
        guard let dir = opendir(folder) else { return }
        defer { closedir(dir) }
        let prefix = "." + name + "."
        while let entry = readdir(dir) {
            let file = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard file.hasPrefix(prefix), file.hasSuffix(".tmp") else { continue }
            let parts = file.dropFirst(prefix.count).dropLast(4).split(separator: ".")
            guard parts.count == 2, let pid = Int32(parts[0]), UInt32(parts[1]) != nil, pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(folder + "/" + file) }
        }
    }
}
