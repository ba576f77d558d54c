// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine

/// One direction of a MIDI port between its real-time side (JACK's process callback,
/// an LV2 host's run) and a control thread: raw MIDI bytes, each packet at a stream
/// frame (`MIDIPacket`), in a bounded lock-free ring. In: the real-time side pushes what
/// arrived (at the frame it arrived at), a MIDI source drains it into `MIDIInterpreter`.
/// Out: a MIDI sink (MPE out) pushes whole messages at the frame they are due, the
/// real-time side writes them to the port. Control code uses the byte-level methods
/// here; the real-time side uses `ring`'s checked methods.
/// A plain struct of pointers; copies share the ring. - Thread: see each.
public struct MIDIPortQueue: @unchecked Sendable {
    /// The ring, for the real-time side (`push`, `peek`, `pop` are `@_noLocks`).
    public let ring: SPSCRing<MIDIPacket>

    /// - Parameter capacity: packets held (≤ 3 bytes each). - Thread: setup.
    public init(capacity: Int) { ring = SPSCRing(capacity: capacity) }

    /// Hands each waiting packet's frame and bytes (1…3) to `body`, oldest first, at
    /// most `maxCount` of them. - Returns: how many. - Thread: the one control consumer.
    @discardableResult
    public func drain(maxCount: Int = 256, _ body: (_ frame: UInt64, _ bytes: ArraySlice<UInt8>) -> Void) -> Int {
        var n = 0
        while n < maxCount, let p = ring.peek() {
            let bytes: [UInt8] = [p.byte0, p.byte1, p.byte2]
            body(p.frame, bytes[0..<Int(p.count)])
            ring.pop()
            n += 1
        }
        return n
    }

    /// Queues one message of 1…3 bytes due at stream frame `frame`; false (counted as a
    /// drop) when the ring is full. - Thread: the one control producer.
    @discardableResult
    public func push(frame: UInt64, count: Int, _ byte0: UInt8, _ byte1: UInt8 = 0, _ byte2: UInt8 = 0) -> Bool {
        ring.push(MIDIPacket(frame: frame, count: count, byte0, byte1, byte2))
    }

    /// Packets waiting. - Thread: any.
    public var count: Int { ring.count }
    /// Packets that did not fit. - Thread: any.
    public var dropped: Int { ring.dropped }

    /// Frees the ring. - Thread: setup, after both sides stopped.
    public func deallocate() { ring.deallocate() }
}

/// What the control side of a MIDI port sees of its real-time side's counters.
/// - Thread: any.
public protocol MIDIPortStatus: Sendable {
    /// The block the real-time side was last given, frames: the latency live MIDI input
    /// and MPE out are planned with.
    var periodFrames: Int { get }
    /// Connections made to the output port so far: each asks for the MPE configuration again.
    var outputConnections: Int { get }
    /// Events the input port received.
    var eventsReceived: Int { get }
    /// Connections to the input port now, and the changes to them so far (a sender
    /// connected or gone); the stream frame of the next period at the last change.
    var inputConnections: Int { get }
    var inputConnectionChanges: Int { get }
    var inputChangedAt: UInt64 { get }
    /// Events written to the output port, and those written after their frame.
    var eventsSent: Int { get }
    var eventsSentLate: Int { get }
}
