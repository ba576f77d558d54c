import BendControl
import BendSystem
import Glibc
import Synchronization

/// Plays the pad from a terminal: owns the tty while running (raw mode, the modes of
/// `TerminalScreen.enter`), reads and decodes its bytes on its own thread, turns them
/// into `ControlEvent`s through a `TerminalPad` and redraws the screen about 30 times a
/// second (re-reading the window size each frame, so resizes show within a frame).
///
/// Wiring (the app):
///
///     let port = ControlPort(mixer: mixer, pitchMap: map, clock: clock)
///     let input = TerminalInput(pitchMap: map,
///         status: { s in s.peak = …; s.voices = …; s.xruns = …; s.device = … },
///         onEvent: { port.send($0) },            // reader thread = the port's one producer
///         onFinish: { reason in wake the main thread })
///     try input.start()
///     … wait for onFinish, SIGINT or SIGTERM …
///     input.stop()                               // joins; the terminal is restored
///     port.releaseAll()
///
/// The reader finishes by itself on `q`/Ctrl-C (`.quit`) and when the terminal goes away
/// (`.hangUp`: POLLHUP, read 0 or EIO); in every case it first sends an `.up` for each
/// held touch (`TerminalPad.end()`), then restores the terminal, then calls `onFinish`.
/// The app should ignore SIGHUP (or handle it) so a hang-up reaches the reader.
public final class TerminalInput: @unchecked Sendable {
    /// Why the reader stopped.
    public enum Finish: Sendable, Equatable {
        /// `q` or Ctrl-C.
        case quit
        /// The terminal hung up or reached end of input.
        case hangUp
        /// `stop()` was called.
        case stopped
        /// A read or poll failed.
        case failed(SystemError)
    }

    public let inputFD: Int32
    public let outputFD: Int32?
    public let pitchMap: PitchMap
    /// Nanoseconds between screen frames.
    public let frameInterval: UInt64
    private let decoderTemplate: TerminalDecoder
    private let status: @Sendable (inout PadStatus) -> Void
    private let onEvent: @Sendable (ControlEvent) -> Void
    private let onFinish: @Sendable (Finish) -> Void
    private let exitBytes = Array(TerminalScreen.exit.utf8)

    private struct State {
        var thread: pthread_t?
        var joined = false
        var wakeRead: Int32 = -1
        var wakeWrite: Int32 = -1
        var mode: TerminalMode?
    }
    private let state = Mutex(State())
    private let restored = Atomic<Bool>(false)

    /// - Parameters:
    ///   - inputFD: the terminal to read (not closed here).
    ///   - outputFD: where the screen and mode strings go, nil to draw nothing.
    ///   - pitchMap: for the ratios shown on screen (use the port's).
    ///   - frameInterval: nanoseconds between frames (default 1/30 s).
    ///   - decoder: a decoder with the timeouts wanted.
    ///   - status: fills the engine's part of each frame (peak, voices, xruns, device);
    ///     touches, pan (the pad's tilt), pitch map and key mode are filled in before.
    ///     Called on the reader thread.
    ///   - onEvent: each control event, in order, on the reader thread.
    ///   - onFinish: once, on the reader thread, after the terminal is restored.
    public init(inputFD: Int32 = STDIN_FILENO, outputFD: Int32? = STDOUT_FILENO, pitchMap: PitchMap = .linear,
                frameInterval: UInt64 = 33_333_333, decoder: TerminalDecoder = TerminalDecoder(),
                status: @escaping @Sendable (inout PadStatus) -> Void = { _ in },
                onEvent: @escaping @Sendable (ControlEvent) -> Void,
                onFinish: @escaping @Sendable (Finish) -> Void = { _ in }) {
        self.inputFD = inputFD
        self.outputFD = outputFD
        self.pitchMap = pitchMap
        self.frameInterval = frameInterval
        self.decoderTemplate = decoder
        self.status = status
        self.onEvent = onEvent
        self.onFinish = onFinish
    }

    /// Puts the terminal in raw mode (when `inputFD` is a terminal), writes the enter
    /// modes and starts the reader thread.
    /// - Throws: `SystemError` (tcgetattr/tcsetattr, pipe, pthread_create).
    /// - Thread: setup, once.
    public func start() throws {
        let mode = isatty(inputFD) == 1 ? try TerminalMode.enterRaw(fd: inputFD) : nil
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            try? mode?.restore()
            throw SystemError(call: "pipe")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        state.withLock {
            $0.mode = mode
            $0.wakeRead = fds[0]
            $0.wakeWrite = fds[1]
        }
        if let outputFD { write(outputFD, Array(TerminalScreen.enter.utf8)) }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&thread, nil, { context in
            let input = Unmanaged<TerminalInput>.fromOpaque(context!).takeRetainedValue()
            input.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<TerminalInput>.fromOpaque(context).release()
            restore()
            throw SystemError(call: "pthread_create(terminal reader)", code: rc)
        }
        state.withLock { $0.thread = thread }
    }

    /// Stops the reader and waits for it (it sends the ups for held touches, restores the
    /// terminal and calls `onFinish(.stopped)` unless it had already finished). Safe to
    /// call more than once; from the reader thread (inside a callback) it only asks.
    /// - Thread: any.
    public func stop() {
        let (thread, wake) = state.withLock { ($0.joined ? nil : $0.thread, $0.wakeWrite) }
        guard let thread else { return }
        if wake >= 0 { var b: UInt8 = 1; _ = Glibc.write(wake, &b, 1) }
        guard pthread_equal(thread, pthread_self()) == 0 else { return }
        let join = state.withLock { s -> Bool in
            if s.joined { return false }
            s.joined = true
            return true
        }
        if join { pthread_join(thread, nil) }
        state.withLock {
            if $0.wakeRead >= 0 { close($0.wakeRead); $0.wakeRead = -1 }
            if $0.wakeWrite >= 0 { close($0.wakeWrite); $0.wakeWrite = -1 }
        }
    }

    /// Writes the exit modes and puts back the terminal's settings; once (later calls do
    /// nothing). Uses only write and tcsetattr, so a signal handler may call it (an
    /// emergency path: normally `stop()`, which also ends the reader, does this).
    /// - Thread: any.
    public func restore() {
        guard !restored.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let outputFD {
            exitBytes.withUnsafeBytes { _ = Glibc.write(outputFD, $0.baseAddress, $0.count) }
        }
        let mode = state.withLock { $0.mode }
        try? mode?.restore()
    }

    // MARK: - The reader thread

    private func run() {
        var decoder = decoderTemplate
        var size = windowSize()
        var pad = TerminalPad(geometry: TerminalScreen.layout(columns: size.columns, rows: size.rows))
        var lastFrame = ""
        var drawing = outputFD != nil
        var nextFrameAt: UInt64 = 0
        let wake = state.withLock { $0.wakeRead }
        var buffer = [UInt8](repeating: 0, count: 4096)

        func deliver(_ events: [TerminalEvent]) -> Bool {
            for event in events {
                for c in pad.handle(event) { onEvent(c) }
                if pad.quitRequested { return false }
            }
            return true
        }

        var reason = Finish.stopped
        loop: while true {
            var now = MonotonicClock.nanos()
            if now >= nextFrameAt {
                let newSize = windowSize()
                if newSize != size || nextFrameAt == 0 {
                    size = newSize
                    pad.geometry = TerminalScreen.layout(columns: size.columns, rows: size.rows)
                    lastFrame = ""
                }
                if drawing, let outputFD {
                    var s = PadStatus()
                    s.touches = PadStatus.touches(pad.touches, pitchMap: pitchMap)
                    s.pan = pad.tilt
                    s.pitchMap = pitchMap
                    s.keysHold = pad.reportsKeyReleases
                    status(&s)
                    let frame = TerminalScreen.frame(s, columns: size.columns, rows: size.rows)
                    if frame != lastFrame {
                        // A new size starts from a clear screen; a failed write (hang-up)
                        // stops drawing, the read side reports the hang-up.
                        drawing = write(outputFD, Array(((lastFrame.isEmpty ? "\u{1B}[2J" : "") + frame).utf8))
                        lastFrame = frame
                    }
                }
                nextFrameAt = now &+ frameInterval
            }
            var deadline = nextFrameAt
            if let d = decoder.nextDeadline { deadline = min(deadline, d) }
            let timeout = deadline > now ? Int32(min((deadline - now + 999_999) / 1_000_000, 1000)) : 0

            var fds = [pollfd(fd: inputFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, 2, timeout)
            if n < 0 {
                if errno == EINTR { continue }
                reason = .failed(SystemError(call: "poll(terminal fd \(inputFD))"))
                break
            }
            if fds[1].revents != 0 { reason = .stopped; break }
            now = MonotonicClock.nanos()
            let revents = Int32(fds[0].revents)
            if revents & Int32(POLLIN) != 0 {
                let count = read(inputFD, &buffer, buffer.count)
                if count > 0 {
                    if !deliver(decoder.feed(buffer[0..<count], at: now)) { reason = .quit; break }
                } else if count == 0 {
                    reason = .hangUp; break
                } else if errno == EIO {
                    reason = .hangUp; break
                } else if errno != EINTR && errno != EAGAIN {
                    reason = .failed(SystemError(call: "read(terminal fd \(inputFD))")); break
                }
            } else if revents & Int32(POLLHUP | POLLERR | POLLNVAL) != 0 {
                reason = .hangUp; break
            }
            if !deliver(decoder.tick(at: now)) { reason = .quit; break loop }
        }
        for c in pad.end() { onEvent(c) }
        restore()
        onFinish(reason)
    }

    private func windowSize() -> (columns: Int, rows: Int) {
        for fd in [outputFD ?? inputFD, inputFD] {
            if let size = try? TerminalMode.windowSize(fd: fd), size.columns > 0, size.rows > 0 { return size }
        }
        return (80, 24)
    }

    /// Writes all of `bytes`; false when the terminal no longer takes output.
    @discardableResult
    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&p, 1, 100)
                continue
            }
            return false
        }
        return true
    }
}
