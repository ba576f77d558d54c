// SPDX-License-Identifier: GPL-3.0-or-later

/// What an input source may show of the output it plays into (the terminal pad's status
/// line, a peer's STATUS frame).
public protocol OutputStatus: AnyObject, Sendable {
    /// One line: device, rate, period, buffer, latency, format.
    var description: String { get }
    /// Xruns recovered so far; nil for an output with no device to run late (paced by
    /// the clock into a file, a plugin host's buffers). - Thread: any.
    var xruns: Int? { get }
    /// Why the output ended by itself (device gone), nil while it runs. - Thread: any.
    var failureDescription: String? { get }
}

/// The one `OutputStatus`: a live output's (`OutputLine(output)` in BendInstrument: its
/// line, xruns and failure read when asked) or a fixed line (a plugin's, a bench's).
public final class OutputLine: OutputStatus, @unchecked Sendable {
    private let line: @Sendable () -> String
    private let countXruns: @Sendable () -> Int?
    private let failure: @Sendable () -> String?

    public init(description: @escaping @Sendable () -> String, xruns: @escaping @Sendable () -> Int?,
                failure: @escaping @Sendable () -> String?) {
        line = description
        countXruns = xruns
        self.failure = failure
    }

    /// A line that does not change, no xrun count (the host keeps its own), no failure
    /// (a plugin host's output).
    public convenience init(_ fixed: String) { self.init(description: { fixed }, xruns: { nil }, failure: { nil }) }

    public var description: String { line() }
    public var xruns: Int? { countXruns() }
    public var failureDescription: String? { failure() }
}

/// What an input source sees of the instrument.
public struct InputContext: @unchecked Sendable {
    /// The instrument's meters (peak, voices, stream position), read-only; events go
    /// through the port.
    public var meters: InstrumentMeters
    public var output: any OutputStatus
    public var pitchMap: PitchMap
    /// Frames per second.
    public var rate: Double
    /// The scale at its root (`--scale`, or chromatic for `--round`), nil without:
    /// pads draw its guides (`Tuning.guides(pitchMap:)`) and each touch's nearest step.
    public var tuning: Tuning?
    /// The MIDI note the tone sounds at as recorded (69 = A4), for the note names pads
    /// show without a scale.
    public var toneNote: Double = 69
    /// Every source's touches (play's), for a pad to show those it does not play itself.
    public var touchBoard: TouchBoard?
    /// Input events that came after their period was rendered, so played late (JACK
    /// MIDI in), for a pad's status line; nil: no source counts them.
    public var lateEvents: (@Sendable () -> Int)?
    /// The instrument's panic (`InstrumentCore.panic`): ends every touch of every source,
    /// sustain included; a source calls it for its panic key, button or message, naming
    /// it ("Escape on the terminal pad", "MIDI CC 123"). Nil: no instrument to ask.
    /// - Thread: any control thread (never the render thread, never inside a port call).
    public var panic: (@Sendable (_ cause: String) -> Void)?
    /// The line a pad shows after a panic (for a few seconds), nil otherwise.
    public var panicNotice: (@Sendable () -> String?)?

    public init(meters: InstrumentMeters, output: any OutputStatus, pitchMap: PitchMap, rate: Double, tuning: Tuning? = nil) {
        self.meters = meters
        self.output = output
        self.pitchMap = pitchMap
        self.rate = rate
        self.tuning = tuning
    }
}

/// One way touches reach the instrument: the terminal, a touch script, input devices,
/// OSC, peers. Each gets its own `ControlPort` (its own event ring: one producer) and
/// runs its I/O on the runtime (`EventLoop`, `SystemThread`); a source whose touches come
/// from many owners numbers them through a `TouchNamespace`.
public protocol InputSource: AnyObject, Sendable {
    /// For messages.
    var name: String { get }
    /// True when play ends as this source ends (the terminal: `q`, hang-up).
    var endsPlay: Bool { get }
    /// Starts the source; it calls `finished` once if it ends by itself.
    /// - Throws: when it cannot start (the app's error type, with its exit status).
    /// - Thread: setup.
    func start(port: ControlPort, context: InputContext, finished: @escaping @Sendable () -> Void) throws
    /// Stops the source and waits for it; its touches end (by it or by the caller's
    /// `port.releaseAll()`, which follows). - Thread: setup.
    func stop()

    // What a front end asks of a source (defaults below: none of these).

    /// True when its events are queued ahead of their time (a script): not live input,
    /// so left out of the events' latency.
    var queuesAhead: Bool { get }
    /// True when it draws on the terminal (the terminal pad): it waits for Enter while
    /// another source's lines are read there (`printsForThePlayer`).
    var ownsTerminal: Bool { get }
    /// True when it prints lines the player reads on the terminal at start (the web pad's
    /// address and QR code).
    var printsForThePlayer: Bool { get }
    /// True when its MIDI comes from the output's own MIDI port (JACK's `midi_in`):
    /// the front end hands it the port's queue with `takeMIDI` before it starts.
    var wantsOutputMIDI: Bool { get }
    /// The output's MIDI port, for a source that `wantsOutputMIDI`. - Thread: setup.
    func takeMIDI(_ queue: MIDIPortQueue, status: any MIDIPortStatus)
    /// Its events that came after their period was rendered, so played late; nil when it
    /// does not count them.
    var lateEvents: Int? { get }
    /// Its last line when play ends (what it received), nil for none.
    var summary: String? { get }
    /// Why it ended by itself with a failure (the terminal's read error), nil otherwise.
    var failureDescription: String? { get }
}

extension InputSource {
    public var queuesAhead: Bool { false }
    public var ownsTerminal: Bool { false }
    public var printsForThePlayer: Bool { false }
    public var wantsOutputMIDI: Bool { false }
    public func takeMIDI(_ queue: MIDIPortQueue, status: any MIDIPortStatus) {}
    public var lateEvents: Int? { nil }
    public var summary: String? { nil }
    public var failureDescription: String? { nil }
}

/// Why a source — or the instrument it plays (its tone, its output, its recordings) —
/// cannot start, and so the exit status: bad input (a named device that is no touch
/// device, a bad file: exit 2) or a runtime failure (a device that does not open, a
/// port in use: exit 1). A front end (the app, the LV2 plugin) shows `description` as it
/// is.
public struct InstrumentError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Bad usage or input: exit status 2.
        case input
        /// A runtime failure: exit status 1.
        case runtime
    }
    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

/// The name sources used for `InstrumentError` before the instrument assembly threw it too.
public typealias InputSourceError = InstrumentError
