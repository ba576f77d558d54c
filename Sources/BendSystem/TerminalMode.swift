// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A terminal switched to raw mode, with the settings to put back.
///
/// Raw: no echo, no line editing, no signals from Ctrl-C/Ctrl-Z (they arrive as bytes
/// 0x03/0x1A), no input translation (CR stays CR), 8-bit; reads return as soon as one
/// byte is there (VMIN 1, VTIME 0). Output processing (NL → CR NL) is kept.
/// - Thread: any; `restore()` uses only `tcsetattr`, which is async-signal-safe.
public struct TerminalMode: Sendable {
    /// The terminal's file descriptor (not owned: never closed here).
    public let fd: Int32
    private let saved: termios

    /// Saves the settings of `fd` and switches it to raw mode.
    /// - Throws: `SystemError` naming `tcgetattr`/`tcsetattr` (ENOTTY when `fd` is not a
    ///   terminal).
    public static func enterRaw(fd: Int32) throws -> TerminalMode {
        var settings = termios()
        try systemCall("tcgetattr(fd \(fd))") { tcgetattr(fd, &settings) }
        let mode = TerminalMode(fd: fd, saved: settings)
        settings.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        settings.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        settings.c_cflag &= ~tcflag_t(CSIZE | PARENB)
        settings.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        try systemCall("tcsetattr(fd \(fd), raw)") { tcsetattr(fd, TCSANOW, &settings) }
        return mode
    }

    /// Puts back the settings saved by `enterRaw`. Safe to call more than once.
    /// - Throws: `SystemError` naming `tcsetattr` (EIO once the terminal hung up).
    public func restore() throws {
        var settings = saved
        try systemCall("tcsetattr(fd \(fd), restore)") { tcsetattr(fd, TCSANOW, &settings) }
    }

    /// Size of the terminal on `fd` in character cells (TIOCGWINSZ).
    /// - Throws: `SystemError` naming `ioctl(TIOCGWINSZ)`.
    public static func windowSize(fd: Int32) throws -> (columns: Int, rows: Int) {
        var size = winsize()
        try systemCall("ioctl(fd \(fd), TIOCGWINSZ)") { ioctl(fd, UInt(TIOCGWINSZ), &size) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Sets the size the terminal on `fd` reports (TIOCSWINSZ), e.g. on a pty in tests.
    /// - Throws: `SystemError` naming `ioctl(TIOCSWINSZ)`.
    public static func setWindowSize(fd: Int32, columns: Int, rows: Int) throws {
        var size = winsize(ws_row: UInt16(clamping: rows), ws_col: UInt16(clamping: columns), ws_xpixel: 0, ws_ypixel: 0)
        try systemCall("ioctl(fd \(fd), TIOCSWINSZ)") { ioctl(fd, UInt(TIOCSWINSZ), &size) }
    }
}
