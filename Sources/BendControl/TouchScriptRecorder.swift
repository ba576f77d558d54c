import BendSystem
import Foundation
import Glibc
import Synchronization

/// Writes every touch and tilt event of every source as a touch script
/// (`--record-touches FILE.jsonl`), so a live take can be rendered again.
///
/// Times are seconds of stream time (the frame each event takes effect at, over the
/// rate) from the first event. Each (source, touch) gets its own script id, so touches
/// of different sources never collide. Lines are flushed as they are written, so the
/// file is complete up to the last event if the process is killed.
public final class TouchScriptRecorder: ControlEventObserver, @unchecked Sendable {
    private struct State {
        var handle: FileHandle
        var firstFrame: UInt64?
        var ids: [UInt64: UInt32] = [:]
        var nextID: UInt32 = 1
    }
    private let state: Mutex<State?>
    private let rate: Double
    public let path: String

    /// Creates (truncates) `path`.
    /// - Throws: `SystemError` (open) when the file cannot be created.
    public init(path: String, rate: Double) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError(call: "open(\(path))") }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        self.path = path
        self.rate = rate
        state = Mutex(State(handle: handle))
    }

    public func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) {
        state.withLock { s in
            guard s != nil else { return }
            let first = s!.firstFrame ?? streamFrame
            s!.firstFrame = first
            let time = Double(streamFrame &- min(first, streamFrame)) / rate
            var scripted = event
            if let (id, phase) = event.touchPhase {
                let key = UInt64(source) << 32 | UInt64(id)
                let sid: UInt32
                if phase == .down {
                    if s!.ids[key] != nil { return }
                    sid = s!.nextID
                    s!.nextID &+= 1
                    s!.ids[key] = sid
                } else if let known = s!.ids[key] {
                    sid = known
                    if phase == .up { s!.ids[key] = nil }
                } else {
                    return
                }
                switch event {
                case let .touch(_, _, x, y): scripted = .touch(id: sid, phase: phase, x: x, y: y)
                case let .pitched(_, _, r, g, y): scripted = .pitched(id: sid, phase: phase, ratio: r, gain: g, y: y)
                case .tilt: break
                }
            }
            let line = TouchScript.line(time: time, event: scripted) + "\n"
            s!.handle.write(Data(line.utf8))
        }
    }

    /// Closes the file. Further events are ignored.
    public func close() {
        state.withLock { s in
            try? s?.handle.close()
            s = nil
        }
    }
}
