// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Glibc
import Synchronization

/// The terminal while the pad owns it: raw mode (when the input is a terminal) and the
/// pad's screen modes (`TerminalScreen.enter`: alternate screen, mouse reports, kitty
/// keys), put back once by `restore()`.
/// - Thread: any; `restore()` uses only write and tcsetattr (async-signal-safe).
public final class TerminalSession: @unchecked Sendable {
    /// The terminal read (not closed here).
    public let inputFD: Int32
    /// Where the screen and the mode strings go, nil for none (not closed here).
    public let outputFD: Int32?
    private let mode: TerminalMode?
    private let exitBytes = Array(TerminalScreen.exit.utf8)
    private let restored = Atomic<Bool>(false)

    /// Switches `inputFD` to raw mode when it is a terminal, and writes the enter modes.
    /// - Throws: `SystemError` naming tcgetattr/tcsetattr.
    /// - Thread: setup.
    public init(inputFD: Int32, outputFD: Int32?) throws {
        self.inputFD = inputFD
        self.outputFD = outputFD
        mode = isatty(inputFD) == 1 ? try TerminalMode.enterRaw(fd: inputFD) : nil
        if let outputFD { TerminalSession.write(outputFD, Array(TerminalScreen.enter.utf8)) }
    }

    /// Writes the exit modes and puts back the terminal's settings; once (later calls do
    /// nothing). Uses only write and tcsetattr, so a signal handler may call it.
    /// - Thread: any.
    public func restore() {
        guard !restored.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let outputFD {
            exitBytes.withUnsafeBytes { _ = Glibc.write(outputFD, $0.baseAddress, $0.count) }
        }
        try? mode?.restore()
    }

    /// The terminal's size in cells (the output's, else the input's; 80×24 when neither
    /// says). - Thread: any.
    public var windowSize: (columns: Int, rows: Int) {
        for fd in [outputFD ?? inputFD, inputFD] {
            if let size = try? TerminalMode.windowSize(fd: fd), size.columns > 0, size.rows > 0 { return size }
        }
        return (80, 24)
    }

    /// Writes all of `bytes`, waiting (up to 100 ms at a time) while a non-blocking
    /// terminal is full; false when the terminal no longer takes output (hang-up).
    /// - Thread: the one thread writing to `fd`.
    @discardableResult
    public static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            do {
                offset += try systemCall("write(terminal fd \(fd))") {
                    bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
                }
            } catch where error.code == EAGAIN {
                _ = try? IOWait.wait(fd: fd, for: .writable, timeout: 0.1)
            } catch {
                return false
            }
        }
        return true
    }
}
