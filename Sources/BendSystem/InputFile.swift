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
}
