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
        let port = self.port
        interpreter.receive(bytes, frame: frame) { event, f in port.send(event, atFrame: f) }
    }

    /// Interprets `bytes` that carry no frame (ALSA sequencer events): the touches they
    /// make are stamped by the port's stream clock as they are sent, like every other
    /// live source's.
    public func receive<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        let port = self.port
        interpreter.receive(bytes, frame: 0) { event, _ in port.send(event) }
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
