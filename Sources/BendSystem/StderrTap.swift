// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Synchronization

/// Takes the process's standard error (fd 2) while a full-screen view owns the terminal:
/// every line anything writes there — bendsynth's own messages, a library's (libjack,
/// libwebsockets, alsa-lib), the Swift runtime's — goes to `onLine` instead of over the
/// view. `end()` puts fd 2 back. Lines are read on a thread of the tap's own, in order;
/// a last line without a newline is handed over at `end()`.
///
/// A pipe, not a pty: nothing reads fd 2 as a terminal while the view is drawn. The pipe
/// holds 64 KiB; a writer that outruns the reader blocks, as it would on a slow terminal.
public final class StderrTap: @unchecked Sendable {
    private let saved: Int32
    private let readEnd: Int32
    private var thread: SystemThread?
    private let ended = Mutex(false)
    /// Tells the reader to take what is left and stop: a child that inherited fd 2 may
    /// hold the pipe open, so end-of-file cannot be waited for.
    private let stopReading: Wakeup

    /// Whether fd 2 is the same terminal as `fd` (the view's output): only then does a
    /// line written there land on the view. A stderr sent to a file or a pipe is left as
    /// it is.
    public static func sharesTerminal(with fd: Int32) -> Bool {
        guard isatty(2) == 1, isatty(fd) == 1 else { return false }
        var a = stat(), b = stat()
        guard fstat(2, &a) == 0, fstat(fd, &b) == 0 else { return false }
        return a.st_rdev == b.st_rdev
    }

    /// Redirects fd 2 into the tap and starts its reader.
    /// - Parameter onLine: each line written to fd 2, without its newline, on the tap's
    ///   thread.
    /// - Throws: `SystemError` (dup, pipe, dup2, pthread_create); fd 2 is as it was.
    /// - Thread: setup.
    public init(onLine: @escaping @Sendable (String) -> Void) throws(SystemError) {
        saved = try systemCall("dup(2)") { fcntl(2, F_DUPFD_CLOEXEC, 3) }
        var ends: [Int32] = [-1, -1]
        do {
            // pipe2 needs _GNU_SOURCE, which the Glibc module lacks. (A thread that forked
            // and exec'd in the instant before FD_CLOEXEC would leak the ends to its child.)
            try systemCall("pipe(stderr tap)") { pipe(&ends) }
            for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            // fd 2 itself must stay open across exec (a child writes to it), and not close
            // when the view ends: dup2 gives it a descriptor of its own.
            try systemCall("dup2(stderr tap, 2)") { dup2(ends[1], 2) }
            close(ends[1])
        } catch {
            for fd in ends where fd >= 0 { close(fd) }
            close(saved)
            throw error
        }
        readEnd = ends[0]
        let readFD = readEnd
        do {
            let stop = try Wakeup("stderr tap")
            stopReading = stop
            thread = try SystemThread(name: "stderr-tap") { StderrTap.read(readFD, stop: stop, onLine) }
        } catch {
            ended.withLock { $0 = true }  // deinit must not undo it again
            dup2(saved, 2)
            close(saved)
            close(readFD)
            throw error
        }
    }

    /// Writes `line` and a newline to fd 2, whatever it is now (after `end()`: the
    /// standard error the tap took). - Thread: any.
    public static func write(line: String) {
        var bytes = Array((line + "\n").utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return }
            bytes = bytes.dropFirst(n)
        }
    }

    /// Puts fd 2 back and waits until every line written before has reached `onLine`.
    /// Once; later calls do nothing. - Thread: any but the tap's own.
    public func end() {
        guard ended.withLock({ e in defer { e = true }; return !e }) else { return }
        dup2(saved, 2)
        stopReading.signal()
        thread?.join()
        close(readEnd)
        close(saved)
    }

    deinit { end() }

    /// Reads lines until `stop`, then what is left in the pipe (non-blocking) and ends.
    private static func read(_ fd: Int32, stop: Wakeup, _ onLine: @Sendable (String) -> Void) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var draining = false
        while true {
            if !draining {
                var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0)]
                if poll(&fds, 2, -1) < 0 { if errno == EINTR { continue }; break }
                if fds[1].revents != 0 {
                    draining = true
                    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                    continue
                }
            }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; break }  // EAGAIN: drained
            if n == 0 { break }
            pending.append(contentsOf: buffer[0..<n])
            while let nl = pending.firstIndex(of: 10) {
                onLine(String(decoding: pending[..<nl], as: UTF8.self))
                pending.removeSubrange(...nl)
            }
        }
        if !pending.isEmpty { onLine(String(decoding: pending, as: UTF8.self)) }
    }
}
