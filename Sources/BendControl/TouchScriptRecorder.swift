// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Foundation
import Glibc
import Synchronization

/// Writes every touch and tilt event of every source as a touch script
/// (`--record-touches FILE.jsonl`): the take, so it can be rendered again.
///
/// Time base: seconds of stream time, the frame each event takes effect at over the rate,
/// from stream frame 0 — the first frame of the output and of `--record`'s WAV — so
/// `render` of the script puts each event on the frame it sounded at in the WAV.
///
/// Only what was played is written: events are held until the stream has passed them
/// (`flush()`, called on every event and by the caller's timer) and written in frame order
/// across sources; events a source queued ahead and then dropped (`cut`: a script stopped
/// early) are never written, and its touches end at the stop. Each (source, touch) gets
/// its own script id, so touches of different sources never collide; a move or up of a
/// touch whose down was not written is not written either. What is written is flushed
/// line by line, so a killed process leaves a valid script up to its last written line
/// (without its `end` line: `close()` writes that).
public final class TouchScriptRecorder: ControlEventObserver, @unchecked Sendable {
    private struct Pending {
        var frame: UInt64
        var source: UInt32
        var event: ControlEvent
    }
    private struct State {
        var handle: FileHandle
        /// Observed, not yet written, in frame order (ties: the order observed).
        var pending: [Pending] = []
        /// (source << 32 | touch id) → script id, for touches whose down is written and up is not.
        var ids: [UInt64: UInt32] = [:]
        var nextID: UInt32 = 1
        /// Whether each source's written events left sustain on.
        var sustained: [UInt32: Bool] = [:]
        /// The last time written (times never go back).
        var lastFrame: UInt64 = 0
        /// Lines written so far; the file is emptied before the first.
        var lines = 0
    }
    private let state: Mutex<State?>
    private let rate: Double
    private let position: @Sendable () -> UInt64
    public let path: String

    /// Lines written so far (0: nothing was played, and the file is not written).
    /// - Thread: any.
    public var linesWritten: Int { lines.load(ordering: .relaxed) }
    private let lines = Atomic<Int>(0)

    /// Opens `path` for writing (made if missing); it is emptied at the first line
    /// written, so a take with nothing played leaves no file (or the take that was there).
    /// - Parameters:
    ///   - rate: frames per second of the stream.
    ///   - position: the stream position (frames rendered so far): events up to it are written.
    /// - Throws: `SystemError` (open) when the file cannot be created.
    public init(path: String, rate: Double, position: @escaping @Sendable () -> UInt64) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError(call: "open(\(path))") }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        self.path = path
        self.rate = rate
        self.position = position
        state = Mutex(State(handle: handle))
    }

    public func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) {
        let now = position()
        state.withLock { s in
            guard s != nil else { return }
            // Frame order: after every pending event at or before this frame.
            let at = s!.pending.lastIndex { $0.frame <= streamFrame }.map { $0 + 1 } ?? 0
            s!.pending.insert(Pending(frame: streamFrame, source: source, event: event), at: at)
            write(&s!, upTo: now)
        }
    }

    /// Drops `source`'s events for after `frame` and ends there what it holds then: an up
    /// at `frame` for each of its touches down after its remaining events (their ups were
    /// among the dropped), and sustain let go if it holds it.
    public func cut(source: UInt32, atFrame frame: UInt64) {
        state.withLock { s in
            guard s != nil else { return }
            s!.pending.removeAll { $0.source == source && $0.frame > frame }
            var down = Set(s!.ids.keys.filter { $0 >> 32 == UInt64(source) }.map { UInt32(truncatingIfNeeded: $0) })
            var sustained = s!.sustained[source] ?? false
            for p in s!.pending where p.source == source {
                if case .sustain(let on) = p.event { sustained = on }
                guard let (id, phase) = p.event.touchPhase else { continue }
                if phase == .down { down.insert(id) } else if phase == .up { down.remove(id) }
            }
            var ends: [ControlEvent] = sustained ? [.sustain(false)] : []
            ends += down.sorted().map { .touch(id: $0, phase: .up, x: 0, y: 0) }
            s!.pending += ends.map { Pending(frame: frame, source: source, event: $0) }
            s!.pending.sort { $0.frame < $1.frame }  // stable: ties keep their order
        }
    }

    /// Writes the events the stream has passed. - Thread: any.
    public func flush() {
        let now = position()
        state.withLock { s in
            guard s != nil else { return }
            write(&s!, upTo: now)
        }
    }

    /// `flushEvery`'s loop ("bendsynth touches"). - Thread: setup (the thread that calls
    /// `flushEvery` and `close`).
    private var flusher: EventLoop?

    /// Calls `flush()` every `seconds` (on an `EventLoop` timer) until `close()`.
    /// - Throws: `SystemError` when the loop cannot start.
    /// - Thread: setup, the thread that will call `close()`.
    public func flushEvery(_ seconds: Double) throws {
        flusher?.stop()
        let loop = try EventLoop(name: "bendsynth touches")
        let nanos = UInt64(seconds * 1e9)
        loop.schedule(after: nanos, repeating: nanos) { [weak self] in self?.flush() }
        try loop.start()
        flusher = loop
    }

    /// Writes what is left (in frame order), then the script's `end` line at the stream
    /// position (the take's length: the frames `--record`'s WAV holds, silence after the
    /// last release included), and closes the file. With nothing played no line is
    /// written and an empty file is removed. Further events are ignored.
    public func close() {
        flusher?.stop()
        flusher = nil
        let now = position()
        state.withLock { s in
            guard s != nil else { return }
            write(&s!, upTo: .max)
            if s!.lines > 0 {
                let end = Double(max(s!.lastFrame, now)) / rate
                s!.handle.write(Data((TouchScript.endLine(time: end) + "\n").utf8))
            }
            // Nothing played: an empty file (made here, or claimed for the take) goes;
            // an earlier take that was there (`--overwrite`) stays as it was.
            var info = stat()
            let empty = fstat(s!.handle.fileDescriptor, &info) == 0 && info.st_size == 0
            try? s!.handle.close()
            if s!.lines == 0 && empty { unlink(path) }
            s = nil
        }
    }

    private func write(_ s: inout State, upTo frame: UInt64) {
        Self.write(&s, upTo: frame, rate: rate)
        lines.store(s.lines, ordering: .relaxed)
    }

    private static func write(_ s: inout State, upTo frame: UInt64, rate: Double) {
        let count = s.pending.prefix { $0.frame <= frame }.count
        guard count > 0 else { return }
        var text = ""
        for p in s.pending[..<count] {
            guard let event = scripted(p, &s) else { continue }
            s.lastFrame = max(s.lastFrame, p.frame)
            text += TouchScript.line(time: Double(s.lastFrame) / rate, event: event) + "\n"
        }
        s.pending.removeFirst(count)
        guard !text.isEmpty else { return }
        if s.lines == 0 { ftruncate(s.handle.fileDescriptor, 0) }
        s.lines += text.utf8.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        s.handle.write(Data(text.utf8))
    }

    /// The event with its script id, or nil when it is not written (a second down of a
    /// touch that is down, a move or up of one whose down was not written).
    private static func scripted(_ p: Pending, _ s: inout State) -> ControlEvent? {
        if case .sustain(let on) = p.event { s.sustained[p.source] = on }
        guard let (id, phase) = p.event.touchPhase else { return p.event }
        let key = UInt64(p.source) << 32 | UInt64(id)
        let sid: UInt32
        switch phase {
        case .down:
            guard s.ids[key] == nil else { return nil }
            sid = s.nextID
            s.nextID &+= 1
            s.ids[key] = sid
        case .move:
            guard let known = s.ids[key] else { return nil }
            sid = known
        case .up:
            guard let known = s.ids.removeValue(forKey: key) else { return nil }
            sid = known
        }
        return p.event.withTouchID(sid)
    }
}
