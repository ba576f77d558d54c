// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A small file only its owner may read (mode 0600), written whole or not at all: through
/// `path.PID.tmp` in the same folder, then a rename over `path` (a reader never sees half a
/// file; a second writer in the same process never shares the temporary). For secrets such
/// as the web pad's pairing address (its token). - Thread: any.
public enum PrivateFile {
    /// Writes `text` to `path`. - Throws: `SystemError` naming the failing call and file.
    public static func write(_ text: String, to path: String) throws(SystemError) {
        let temporary = "\(path).\(getpid()).\(UInt32.random(in: 0 ... .max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError(call: "open(\(temporary))") }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let error = SystemError(call: "write(\(temporary))")
                close(fd)
                unlink(temporary)
                throw error
            }
            bytes = bytes.dropFirst(n)
        }
        // fchmod: an umask never widens 0600, but a narrower one (0o777) would leave the
        // owner unable to read it back.
        let mode = fchmod(fd, 0o600) == 0 ? nil : SystemError(call: "fchmod(\(temporary))")
        let closed = close(fd) == 0 ? nil : SystemError(call: "close(\(temporary))")
        if let error = mode ?? closed {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = SystemError(call: "rename(\(temporary), \(path))")
            unlink(temporary)
            throw error
        }
    }
}
