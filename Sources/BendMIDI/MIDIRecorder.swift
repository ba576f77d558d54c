// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import Glibc
import Synchronization

/// Writes every touch and tilt of every source as MPE into a Standard MIDI File
/// (`--record-midi FILE.mid`), through the same `MPEEncoder` as `--midi-out`.
///
/// Format 0, 960 ticks per quarter note at 120 bpm (1920 ticks a second, 0.52 ms);
/// times are stream time (each event's frame over the rate) from the first event; the
/// zone set-up (`MPEEncoder.configuration`) comes first, at tick 0. The file is
/// created (truncated) at once, so a bad path fails before play starts; the events are
/// kept as they come and encoded in the order they sound (by frame, as MIDI out's pump
/// does: a script's events are seen long before a live touch that sounds first),
/// note-offs for held touches last; written whole at `close()` and, with `writeEvery`,
/// every second meanwhile, each time through a temporary file renamed over it: never
/// half-written, and valid up to the last second if play is killed.
public final class MIDIRecorder: ControlEventObserver, @unchecked Sendable {
    public static let ticksPerQuarter = 960
    /// Ticks per second at the file's tempo (120 bpm).
    public static let ticksPerSecond = 1920.0

    private struct Take {
        /// Every event so far, as observed (each source's frames non-decreasing).
        var events: [(frame: UInt64, source: UInt32, event: ControlEvent)] = []
        var closed = false
    }
    private let take = Mutex(Take())
    private let rate: Double
    private let toneNote: Double
    private let pitchMap: PitchMap
    public let path: String

    /// - Throws: `SystemError` (open) when the file cannot be created.
    public init(path: String, rate: Double, toneNote: Double = 69, pitchMap: PitchMap) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError(call: "open(\(path))") }
        Glibc.close(fd)
        self.path = path
        self.rate = rate
        self.toneNote = toneNote
        self.pitchMap = pitchMap
    }

    public func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) {
        take.withLock { t in
            guard !t.closed else { return }
            t.events.append((streamFrame, source, event))
        }
    }

    /// Drops `source`'s events observed for after `frame` (a script stopped early: they
    /// were never played).
    public func cut(source: UInt32, atFrame frame: UInt64) {
        take.withLock { t in t.events.removeAll { $0.source == source && $0.frame > frame } }
    }

    /// The take as MPE: the zone set-up at tick 0, every event in frame order (ties: the
    /// order observed), note-offs for touches still held at the last event's tick.
    private func messages(_ events: [(frame: UInt64, source: UInt32, event: ControlEvent)]) -> [(tick: UInt64, message: MIDIMessage)] {
        let ordered = events.indices.sorted { (events[$0].frame, $0) < (events[$1].frame, $1) }.map { events[$0] }
        let first = ordered.first?.frame ?? 0
        let rate = self.rate
        func tick(_ frame: UInt64) -> UInt64 {
            UInt64((Double(frame - first) / rate * MIDIRecorder.ticksPerSecond).rounded())
        }
        var out: [(tick: UInt64, message: MIDIMessage)] = []
        var encoder = MPEEncoder(toneNote: toneNote, pitchMap: pitchMap)
        encoder.configuration { out.append((0, $0)) }
        for e in ordered {
            let t = tick(e.frame)
            encoder.encode(e.event, source: e.source) { out.append((t, $0)) }
        }
        let end = tick(ordered.last?.frame ?? first)
        encoder.releaseAll { out.append((end, $0)) }
        return out
    }

    /// `writeEvery`'s loop ("bendsynth midi file"). - Thread: setup (the thread that calls
    /// `writeEvery` and `close`).
    private var writer: EventLoop?

    /// Writes the file as it is so far every `seconds` (on an `EventLoop` timer) until
    /// `close()`: each time a complete file (note-offs for touches still held at its last
    /// event), renamed over the last, so a `play` killed with SIGKILL leaves a file that
    /// plays what was recorded up to `seconds` before. Only events that have sounded
    /// (`position`, the stream frame now) are written: a script's are seen well ahead.
    /// - Throws: `SystemError` when the loop cannot start.
    /// - Thread: setup, the thread that will call `close()`.
    public func writeEvery(_ seconds: Double, position: @escaping @Sendable () -> UInt64) throws {
        writer?.stop()
        let loop = try EventLoop(name: "bendsynth midi file")
        let nanos = UInt64(seconds * 1e9)
        loop.schedule(after: nanos, repeating: nanos) { [weak self] in
            let now = position()
            guard let self, let events = self.take.withLock({ $0.closed ? nil : $0.events.filter { $0.frame <= now } }) else { return }
            try? self.write(events)  // a failure is said by close(), which writes again
        }
        try loop.start()
        writer = loop
    }

    /// Writes the file (note-offs for touches still held at the last event's time).
    /// Further events are ignored.
    /// - Throws: `SystemError` when the file cannot be written.
    public func close() throws {
        writer?.stop()
        writer = nil
        let events = take.withLock { t -> [(frame: UInt64, source: UInt32, event: ControlEvent)]? in
            guard !t.closed else { return nil }
            t.closed = true
            defer { t.events = [] }
            return t.events
        }
        guard let events else { return }
        try write(events)
    }

    /// `events` as a whole file, through a temporary file renamed over `path`.
    private func write(_ events: [(frame: UInt64, source: UInt32, event: ControlEvent)]) throws {
        let bytes = StandardMIDIFile.format0(events: messages(events), ticksPerQuarter: MIDIRecorder.ticksPerQuarter)
        let temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError(call: "open(\(temporary))") }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let code = errno
        Glibc.close(fd)
        guard written == bytes.count else {
            unlink(temporary)
            throw SystemError(call: "write(\(temporary))", code: written < 0 ? code : EIO)
        }
        guard rename(temporary, path) == 0 else {
            let e = errno
            unlink(temporary)
            throw SystemError(call: "rename(\(path))", code: e)
        }
    }
}
