// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

/// MIDI in's one way into the engine: raw bytes from a MIDI port (JACK `midi_in` with the
/// stream frame each takes effect at; the ALSA sequencer without one, stamped by the clock), through a
/// `MIDIInterpreter` into the source's `ControlPort`. The port's I/O (reading the port,
/// working out the frame: the JACK period's first stream frame + the event's offset)
/// is the caller's.
/// - Thread: one control thread (the port's one producer), never the render thread.
public final class MIDIInputFeed: @unchecked Sendable {
    private var interpreter: MIDIInterpreter
    private let port: ControlPort
    private var watch = MIDISenderWatch()
    /// The instrument's panic (`InputContext.panic`), asked by CC 120/123 on any channel.
    public var panic: (@Sendable (String) -> Void)?

    public init(port: ControlPort, toneNote: Double = 69) {
        self.port = port
        interpreter = MIDIInterpreter(toneNote: toneNote)
    }

    /// - Parameter keys: each key's pitch (`--scale`, `--kbm`; 12-TET without).
    public init(port: ControlPort, keys: KeyboardTuning) {
        self.port = port
        interpreter = MIDIInterpreter(keys: keys)
    }

    /// Interprets `bytes` (whole messages or any part of a stream) and sends the touches
    /// they make at stream frame `frame`.
    public func receive<C: Collection>(_ bytes: C, atFrame frame: UInt64) where C.Element == UInt8 {
        let port = self.port, panics = interpreter.panics
        interpreter.receive(bytes, frame: frame) { event, f in port.send(event, atFrame: f) }
        if interpreter.panics != panics { panic?("MIDI CC 120/123") }
    }

    /// Interprets `bytes` that carry no frame (ALSA sequencer events): the touches they
    /// make are stamped by the port's stream clock as they are sent, like every other
    /// live source's.
    public func receive<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        let port = self.port, panics = interpreter.panics
        interpreter.receive(bytes, frame: 0) { event, _ in port.send(event) }
        if interpreter.panics != panics { panic?("MIDI CC 120/123") }
    }

    /// A change in who sends to the port (`MIDISenderWatch`): when the last sender went,
    /// every note they started ends, the pedal let go. - Returns: the notes ended then
    /// (nil: someone is still connected, or none was).
    /// - Parameter frame: the stream frame they end at (JACK: the period after the change;
    ///   nil: now, by the port's clock).
    @discardableResult
    public func senders(_ event: MIDISenderWatch.Event, atFrame frame: UInt64? = nil) -> Int? {
        guard watch.apply(event) else { return nil }
        let n = interpreter.heldNotes, port = self.port
        if let frame { interpreter.releaseAll { port.send($0, atFrame: frame) } } else { releaseAll() }
        return n
    }

    /// Ends every note (the port went away, play stops).
    public func releaseAll() {
        let port = self.port
        interpreter.releaseAll { port.send($0) }
    }

    /// Bytes that made no message, messages that meant nothing here; notes sounding.
    public var strayBytes: Int { interpreter.strayBytes }
    public var unusedMessages: Int { interpreter.unusedMessages }
    public var heldNotes: Int { interpreter.heldNotes }
}
