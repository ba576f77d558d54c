// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import Synchronization

/// What the reader publishes of the pad for the view, and the geometry the view found.
/// - Thread: any (under its lock).
final class PadBoard: Sendable {
    struct State: Sendable {
        /// Touches down now, by id.
        var touches: [TerminalPad.Touch] = []
        /// The pad's tilt (pan), −1…+1.
        var tilt: Double = 0
        /// Keys hold (the terminal reports releases) rather than toggle.
        var keysHold = false
        /// Sustain is on (space).
        var sustained = false
        /// The pad's place on screen, from the latest window size.
        var geometry: PadGeometry
    }
    private let state: Mutex<State>
    init(geometry: PadGeometry) { state = Mutex(State(geometry: geometry)) }
    func withLock<R>(_ body: (inout State) -> R) -> R { state.withLock { body(&$0) } }
}

/// Draws the pad on its own thread ("bendsynth pad view"), on a timer: about 30 frames a
/// second, re-reading the window size each frame (so resizes show within a frame and the
/// reader maps mouse reports with the new geometry). A frame is written only when it
/// changed; a failed write (the terminal hung up) stops drawing, and the reader reports
/// the hang-up. Slow output never delays reading: the reader runs on another thread.
final class TerminalPadView: @unchecked Sendable {
    private let session: TerminalSession
    private let pitchMap: PitchMap
    private let tuning: Tuning?
    /// Names pitches without a scale: chromatic at the tone's note.
    private let names: Tuning
    /// The scale's steps on the pad, worked out once.
    private let guides: [ScaleGuide]
    /// The locale's: ASCII where it is not UTF-8.
    private let charset: TerminalCharset
    /// Nanoseconds between frames.
    private let frameInterval: UInt64
    private let board: PadBoard
    private let status: @Sendable (inout PadStatus) -> Void
    private let loop: EventLoop
    // The view's thread only:
    private var size: (columns: Int, rows: Int)
    private var lastFrame = ""
    private var drawing: Bool

    /// - Parameters:
    ///   - board: shared with the reader (it writes touches and tilt, this the geometry).
    ///   - status: fills the engine's part of each frame; called on the view's thread.
    init(session: TerminalSession, pitchMap: PitchMap, tuning: Tuning? = nil, toneNote: Double = 69, frameInterval: UInt64, board: PadBoard,
         size: (columns: Int, rows: Int), status: @escaping @Sendable (inout PadStatus) -> Void) throws {
        self.session = session
        self.pitchMap = pitchMap
        self.tuning = tuning
        names = Tuning(scale: Scale.builtIn("chromatic")!, toneNote: toneNote)
        guides = tuning?.guides(pitchMap: pitchMap) ?? []
        charset = TerminalCharset.current
        self.frameInterval = frameInterval
        self.board = board
        self.status = status
        self.size = size
        drawing = session.outputFD != nil
        loop = try EventLoop(name: "bendsynth pad view")
    }

    /// Starts drawing: the first frame at once. - Thread: setup.
    func start() throws {
        loop.schedule(after: 0, repeating: frameInterval) { [weak self] in self?.frame() }
        try loop.start()
    }

    /// Stops drawing and waits for the view's thread (no frame is written after this
    /// returns). - Thread: any but the view's.
    func stop() { loop.stop() }

    private func frame() {
        let newSize = session.windowSize
        if newSize != size {
            size = newSize
            let geometry = TerminalScreen.layout(columns: size.columns, rows: size.rows)
            board.withLock { $0.geometry = geometry }
            lastFrame = ""
        }
        guard drawing, let outputFD = session.outputFD else { return }
        let b = board.withLock { $0 }
        var s = PadStatus()
        s.touches = PadStatus.touches(b.touches, pitchMap: pitchMap)
        s.pan = b.tilt
        s.pitchMap = pitchMap
        s.tuning = tuning
        s.names = names
        s.guides = guides
        s.keysHold = b.keysHold
        s.charset = charset
        s.sustained = b.sustained
        status(&s)
        let text = TerminalScreen.frame(s, columns: size.columns, rows: size.rows)
        guard text != lastFrame else { return }
        // A new size starts from a clear screen.
        drawing = TerminalSession.write(outputFD, Array(((lastFrame.isEmpty ? "\u{1B}[2J" : "") + text).utf8))
        lastFrame = text
    }
}
