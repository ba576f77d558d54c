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
}
