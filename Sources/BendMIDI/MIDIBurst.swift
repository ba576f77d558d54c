// SPDX-License-Identifier: GPL-3.0-or-later
/// The few MIDI messages one event makes (at most `capacity`), inline in a plain value:
/// what the real-time encoder (`MPEEncoder.encode(_:source:into:)`) and interpreter
/// hand back without a closure or a heap, so a plugin's render thread uses them checked.
public struct MIDIBurst: Sendable {
    /// Messages it holds at most: a down that steals a channel makes 4; every member
    /// channel's note-off at once, 15.
    public static var capacity: Int { @_noLocks get { 16 } }
    private var storage: (MIDIMessage, MIDIMessage, MIDIMessage, MIDIMessage, MIDIMessage, MIDIMessage, MIDIMessage, MIDIMessage,
                          MIDIMessage, MIDIMessage, MIDIMessage, MIDIMessage, MIDIMessage, MIDIMessage, MIDIMessage, MIDIMessage)
    /// Messages held, 0…`capacity`.
    public private(set) var count = 0

    @_noLocks
    public init() {
        let m = MIDIMessage(status: 0xF8)
        storage = (m, m, m, m, m, m, m, m, m, m, m, m, m, m, m, m)
    }

    /// Appends `message` (dropped when full: never, for what the encoder makes).
    @_noLocks
    public mutating func append(_ message: MIDIMessage) {
        guard count < MIDIBurst.capacity else { return }
        let i = count
        withUnsafeMutableBytes(of: &storage) { $0.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: MIDIMessage.self)[i] = message }
        count += 1
    }

    /// Message `i`, 0 ≤ i < count.
    @_noLocks
    public subscript(i: Int) -> MIDIMessage {
        var s = storage
        return withUnsafeBytes(of: &s) { $0.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: MIDIMessage.self)[i] }
    }

    /// The messages, in order.
    public var messages: [MIDIMessage] { (0..<count).map { self[$0] } }
}
