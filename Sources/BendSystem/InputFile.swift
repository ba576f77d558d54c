// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// What an input path is when it is not a regular file, for messages that say why a file
/// cannot be read ("is a folder") rather than a guess ("no such file", "permission denied",
/// libsndfile's "Format not recognised."): scripts, config files, tones.
public enum InputFile {
    /// "is a folder", "is not a regular file (a device, a FIFO or a socket)", or nil for a
    /// regular file or a path that does not exist (symbolic links followed).
    public static func notARegularFile(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "is a folder"
        default: return "is not a regular file (a device, a FIFO or a socket)"
        }
    }

    /// For a secret (a shared key, a pairing token, a private key): "can be read by other
    /// users of this machine (mode 0644); chmod 600 'PATH'" when its group or others may
    /// read or write it, else nil (and for a path that cannot be read).
    public static func openToOthers(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o077 != 0 else { return nil }
        let mode = String(info.st_mode & 0o777, radix: 8)
        return "can be read by other users of this machine (mode 0\(mode)); chmod 600 '\(path)'"
    }

    /// The file's bytes, read to its end (files under /proc report size 0); nil when it
    /// cannot be opened or read (`errno` says why).
    public static func contents(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
        }
    }

    /// The file as UTF-8 text; nil when it cannot be read or is not UTF-8.
    public static func text(_ path: String) -> String? {
        contents(path).flatMap { String(validating: $0, as: UTF8.self) }
    }
}
