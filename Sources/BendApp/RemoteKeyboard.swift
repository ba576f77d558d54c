import BendPeers
import BendSystem
import Glibc
import Synchronization

/// Sits between the real terminal and the remote's pad: every byte goes on to the pad
/// (through a pipe, `padFD`) except that `/` typed outside an escape sequence or a paste
/// opens a text line; Enter sends it (`onText`), Esc or Ctrl-C cancels, Backspace
/// deletes. The terminal goes raw here (the pad reads a pipe, so it leaves modes alone);
/// when the terminal hangs up, the pipe closes and the pad sees the hang-up.
final class RemoteKeyboard: @unchecked Sendable {
    /// The pad reads this (not closed by the pad; closed by `stop`).
    let padFD: Int32
    private let padWriter: Int32
    private let stopRead: Int32, stopWrite: Int32
    private let onText: @Sendable (String) -> Void
    private var mode: TerminalMode?
    private var thread: RealtimeThread?
    private let typing = Mutex<[UInt8]?>(nil)

    enum Scan { case normal, escape, csi([UInt8]), paste([UInt8]) }
    private var scan = Scan.normal

    /// The line being typed (nil when not typing), for the status line.
    /// - Thread: any.
    var line: String? { typing.withLock { $0.map { String(decoding: $0, as: UTF8.self) } } }

    /// Whether `/` opens a text line (the remote); `play` uses only `intercept`.
    private let textLine: Bool
    /// Sees each byte typed outside escape sequences and text lines; true consumes it.
    private let intercept: (@Sendable (UInt8) -> Bool)?

    init(onText: @escaping @Sendable (String) -> Void, textLine: Bool = true, intercept: (@Sendable (UInt8) -> Bool)? = nil) throws {
        self.textLine = textLine
        self.intercept = intercept
        var p: [Int32] = [-1, -1], s: [Int32] = [-1, -1]
        guard pipe(&p) == 0, pipe(&s) == 0 else { throw SystemError(call: "pipe") }
        for fd in p + s { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        padFD = p[0]; padWriter = p[1]; stopRead = s[0]; stopWrite = s[1]
        self.onText = onText
    }

    /// Raw mode on standard input and the reader thread.
    /// - Throws: `SystemError` (tcsetattr, pthread_create).
    func start() throws {
        mode = isatty(STDIN_FILENO) == 1 ? try TerminalMode.enterRaw(fd: STDIN_FILENO) : nil
        do {
            thread = try RealtimeThread(priority: nil, lockMemory: false) { [self] in run() }
        } catch let e as SystemError {
            try? mode?.restore()
            throw SystemError(call: "pthread_create(remote keyboard)", code: e.code)
        }
    }

    /// Stops the reader, restores the terminal, closes the pipes.
    func stop() {
        var b: UInt8 = 1
        _ = write(stopWrite, &b, 1)
        thread?.join(); thread = nil
        try? mode?.restore()
        mode = nil
        closeWriter()
        for fd in [padFD, stopRead, stopWrite] { close(fd) }
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0), pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, -1) < 0 { if errno == EINTR { continue }; break }
            if fds[1].revents != 0 { return }
            let n = read(STDIN_FILENO, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            var out: [UInt8] = []
            for byte in buffer[0..<n] { filter(byte, into: &out) }
            if !out.isEmpty { _ = out.withUnsafeBytes { write(padWriter, $0.baseAddress, $0.count) } }
        }
        closeWriter()   // the terminal went away: the pad sees end of input (hang-up)
    }

    private let writerClosed = Mutex(false)
    private func closeWriter() {
        writerClosed.withLock { closed in
            if !closed { close(padWriter); closed = true }
        }
    }

    /// One byte from the terminal: into the text line, or on to the pad.
    func filter(_ byte: UInt8, into out: inout [UInt8]) {
        switch scan {
        case .normal:
            if var line = typing.withLock({ $0 }) {
                switch byte {
                case 0x0d, 0x0a:
                    typing.withLock { $0 = nil }
                    onText(String(decoding: line, as: UTF8.self))
                case 0x1b:
                    typing.withLock { $0 = nil }      // Esc cancels; a sequence goes on to the pad
                    scan = .escape; out.append(byte)
                case 0x03:
                    typing.withLock { $0 = nil }
                case 0x7f, 0x08:
                    while let last = line.popLast(), last & 0xc0 == 0x80 {}   // a whole UTF-8 character
                    typing.withLock { $0 = line }
                case 0x20...:
                    if line.count < PeerProtocol.maxTextBytes { line.append(byte); typing.withLock { $0 = line } }
                default: break
                }
                return
            }
            if let intercept, intercept(byte) { return }
            if textLine, byte == UInt8(ascii: "/") { typing.withLock { $0 = [] }; return }
            if byte == 0x1b { scan = .escape }
            out.append(byte)
        case .escape:
            out.append(byte)
            scan = byte == UInt8(ascii: "[") ? .csi([]) : .normal
        case .csi(var params):
            out.append(byte)
            if (0x40...0x7e).contains(byte) {
                scan = params == Array("200".utf8) && byte == UInt8(ascii: "~") ? .paste([]) : .normal
            } else {
                params.append(byte)
                scan = .csi(params)
            }
        case .paste(var tail):
            out.append(byte)
            tail.append(byte)
            if tail.count > 6 { tail.removeFirst(tail.count - 6) }
            scan = tail == Array("\u{1b}[201~".utf8) ? .normal : .paste(tail)
        }
    }
}
