// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import Glibc
import Synchronization

/// Plays the pad from a terminal. Three parts, each on its own: a `TerminalSession` owns
/// the tty while running (raw mode, the modes of `TerminalScreen.enter`, restore); a
/// `TerminalReader` reads and decodes its bytes on an event loop and turns them into
/// `ControlEvent`s through a `TerminalPad`; a `TerminalPadView` redraws the screen about
/// 30 times a second on its own timer and thread (re-reading the window size each frame,
/// so resizes show within a frame).
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
/// held touch (`TerminalPad.end()`), then stops the view, restores the terminal, then
/// calls `onFinish`. The app should ignore SIGHUP (or handle it) so a hang-up reaches
/// the reader.
public final class TerminalInput: @unchecked Sendable {
    /// Why the reader stopped.
    public enum Finish: Sendable, Equatable {
        /// `q` or Ctrl-C.
        case quit
        /// The terminal hung up or reached end of input.
        case hangUp
        /// `stop()` was called.
        case stopped
        /// A read failed.
        case failed(SystemError)
    }

    public let inputFD: Int32
    public let outputFD: Int32?
    public let pitchMap: PitchMap
    /// The scale whose steps the pad shows as guides and the letter keys play; nil: the
    /// ratio grid, and the keys at their fixed points.
    public let tuning: Tuning?
    /// The MIDI note the tone sounds at as recorded (69 = A4): the note names shown
    /// without a scale.
    public let toneNote: Double
    /// Nanoseconds between screen frames.
    public let frameInterval: UInt64
    private let decoderTemplate: TerminalDecoder
    private let status: @Sendable (inout PadStatus) -> Void
    private let filter: (@Sendable (TerminalEvent) -> Bool)?
    private let onEvent: @Sendable (ControlEvent) -> Void
    private let onFinish: @Sendable (Finish) -> Void

    private struct Parts {
        var session: TerminalSession?
        var reader: TerminalReader?
        var view: TerminalPadView?
    }
    private let parts = Mutex(Parts())

    /// - Parameters:
    ///   - inputFD: the terminal to read (not closed here).
    ///   - outputFD: where the screen and mode strings go, nil to draw nothing.
    ///   - pitchMap: for the ratios shown on screen (use the port's).
    ///   - tuning: the scale whose steps are drawn as guides and the keys play (the
    ///     context's), or nil.
    ///   - toneNote: the tone's MIDI note, for note names without a scale (the context's).
    ///   - frameInterval: nanoseconds between frames (default 1/30 s).
    ///   - decoder: a decoder with the timeouts wanted.
    ///   - status: fills the engine's part of each frame (peak, voices, xruns, device);
    ///     touches, pan (the pad's tilt), pitch map and key mode are filled in before.
    ///     Called on the view's thread.
    ///   - filter: sees each decoded event before the pad, on the reader thread; true
    ///     consumes it (the remote's text line, the invitation prompt's y/n).
    ///   - onEvent: each control event, in order, on the reader thread.
    ///   - onFinish: once, on the reader thread, after the terminal is restored.
    public init(inputFD: Int32 = STDIN_FILENO, outputFD: Int32? = STDOUT_FILENO, pitchMap: PitchMap = .linear,
                tuning: Tuning? = nil, toneNote: Double = 69, frameInterval: UInt64 = 33_333_333, decoder: TerminalDecoder = TerminalDecoder(),
                status: @escaping @Sendable (inout PadStatus) -> Void = { _ in },
                filter: (@Sendable (TerminalEvent) -> Bool)? = nil,
                onEvent: @escaping @Sendable (ControlEvent) -> Void,
                onFinish: @escaping @Sendable (Finish) -> Void = { _ in }) {
        self.inputFD = inputFD
        self.outputFD = outputFD
        self.pitchMap = pitchMap
        self.tuning = tuning
        self.toneNote = toneNote
        self.frameInterval = frameInterval
        self.decoderTemplate = decoder
        self.status = status
        self.filter = filter
        self.onEvent = onEvent
        self.onFinish = onFinish
    }

    /// Puts the terminal in raw mode (when `inputFD` is a terminal), writes the enter
    /// modes and starts the view's and the reader's threads.
    /// - Throws: `SystemError` (tcgetattr/tcsetattr, eventfd, pthread_create); the
    ///   terminal is restored first.
    /// - Thread: setup, once.
    public func start() throws {
        let session = try TerminalSession(inputFD: inputFD, outputFD: outputFD)
        parts.withLock { $0.session = session }
        do {
            let size = session.windowSize
            let board = PadBoard(geometry: TerminalScreen.layout(columns: size.columns, rows: size.rows))
            let view = try TerminalPadView(session: session, pitchMap: pitchMap, tuning: tuning, toneNote: toneNote, frameInterval: frameInterval,
                                           board: board, size: size, status: status)
            // The letter keys on the scale's notes (chromatic on the tone's pitch without one).
            let keys = tuning.map { KeyLayout(tuning: $0, pitchMap: pitchMap) } ?? KeyLayout(toneNote: toneNote, pitchMap: pitchMap)
            let reader = try TerminalReader(inputFD: inputFD, decoder: decoderTemplate, board: board, keys: keys, filter: filter,
                                            onEvent: onEvent, onFinish: onFinish)
            // On the reader's thread as it finishes: no frame after the exit modes.
            reader.beforeFinish = { view.stop(); session.restore() }
            try view.start()
            parts.withLock { $0.view = view }
            try reader.start()
            parts.withLock { $0.reader = reader }
        } catch {
            parts.withLock { $0.view }?.stop()
            session.restore()
            throw error
        }
    }

    /// Stops the reader and waits for it (it sends the ups for held touches, stops the
    /// view, restores the terminal and calls `onFinish(.stopped)` unless it had already
    /// finished). Safe to call more than once; from the reader thread (inside a callback)
    /// it only asks.
    /// - Thread: any.
    public func stop() {
        parts.withLock { $0.reader }?.stop()
    }

    /// Writes the exit modes and puts back the terminal's settings; once (later calls do
    /// nothing). Uses only write and tcsetattr, so a signal handler may call it (an
    /// emergency path: normally `stop()`, which also ends the reader, does this).
    /// - Thread: any.
    public func restore() {
        parts.withLock { $0.session }?.restore()
    }
}
