import BendControl
import BendSystem
import Foundation
import Glibc
import Synchronization

/// Writes every touch and tilt of every source as MPE into a Standard MIDI File
/// (`--record-midi FILE.mid`), through the same `MPEEncoder` as `--midi-out`.
///
/// Format 0, 960 ticks per quarter note at 120 bpm (1920 ticks a second, 0.52 ms);
/// times are stream time (each event's frame over the rate) from the first event; the
/// zone set-up (`MPEEncoder.configuration`) comes first, at tick 0. The file is
/// created (truncated) at once, so a bad path fails before play starts; its content is
/// written at `close()` (note-offs for held touches included), through a temporary file
/// renamed over it: never half-written.
public final class MIDIRecorder: ControlEventObserver, @unchecked Sendable {
    public static let ticksPerQuarter = 960
    /// Ticks per second at the file's tempo (120 bpm).
    public static let ticksPerSecond = 1920.0

    private struct Take {
        var events: [(tick: UInt64, message: MIDIMessage)] = []
        var firstFrame: UInt64?
    }
    /// The messages so far: appended by the stream's sink, read by `close`.
    private final class TakeBox: Sendable { let take = Mutex(Take()) }
    private let box = TakeBox()
    private var stream: MPEStream!
    private let rate: Double
    private let closed = Atomic<Bool>(false)
    public let path: String

    /// - Throws: `SystemError` (open) when the file cannot be created.
    public init(path: String, rate: Double, toneNote: Int = 69, pitchMap: PitchMap) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError(call: "open(\(path))") }
        Glibc.close(fd)
        self.path = path
        self.rate = rate
        let box = self.box
        stream = MPEStream(toneNote: toneNote, pitchMap: pitchMap) { message, frame in
            box.take.withLock { t in
                // The set-up is sent before any event: it gets tick 0.
                let first = t.firstFrame ?? frame
                t.firstFrame = first
                let tick = UInt64((Double(frame &- min(first, frame)) / rate * MIDIRecorder.ticksPerSecond).rounded())
                t.events.append((max(tick, t.events.last?.tick ?? 0), message))
            }
        }
        stream.configure(atFrame: 0)
        box.take.withLock { $0.firstFrame = nil }  // the set-up is at tick 0; so is the first event
    }

    public func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) {
        stream.observe(event, source: source, streamFrame: streamFrame)
    }

    /// Writes the file (note-offs for touches still held at the last event's time).
    /// Further events are ignored.
    /// - Throws: `SystemError` when the file cannot be written.
    public func close() throws {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        stream.finish()
        let events = box.take.withLock { $0.events }
        let bytes = StandardMIDIFile.format0(events: events, ticksPerQuarter: MIDIRecorder.ticksPerQuarter)
        let temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError(call: "open(\(temporary))") }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
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
