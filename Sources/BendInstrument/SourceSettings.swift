// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEvdev
import BendInput
import BendOSC
import BendPeers
import BendSystem
import BendWeb

/// One input source an instrument plays, as a plain value: what the front end asked for
/// (parsed and checked there: addresses, files). `SourceFactory` makes the source.
public enum SourceSettings: @unchecked Sendable {
    /// The pad drawn in the terminal on standard input; `PadSettings` for what the front
    /// end adds (remote's link line and text messages).
    case terminal(PadSettings = PadSettings())
    /// A touch script (or MIDI file made into one) played live; `name` for messages.
    case script(name: String, TouchScript)
    /// Input devices: "auto" (hot-plug) and/or /dev/input/eventN paths.
    case evdev(devices: [String], mapping: EvdevMapping, grab: Bool)
    /// Peers over TCP (`play --listen`): the address; `keyFile` (nil: the default key off
    /// loopback, made on first use); `name` the instrument shows.
    case peers(address: SocketAddress, keyFile: String?, name: String?)
    /// Peers over Bluetooth (`play --bluetooth`): who may pair and play; `name` as above.
    case bluetooth(admission: BluetoothAdmission, name: String?)
    /// OSC and TUIO (`play --osc`).
    case osc(address: OSCListenAddress, tcp: Bool, timeout: Double, restTimeout: Double)
    /// MIDI and MPE in: JACK's `midi_in` with a JACK output, else an ALSA sequencer port.
    case midiIn
    /// The web pad (`play --web`); `address` also gets the pad's address (standard
    /// output, when the terminal pad is not drawn there).
    case web(WebSource.Settings, address: (@Sendable (String) -> Void)? = nil)
    /// A source the front end made; `observers` see its port's events too.
    case source(InputSource, observers: [ControlEventObserver] = [])

    /// Whether this is the terminal pad.
    var isTerminal: Bool { if case .terminal = self { true } else { false } }
}

/// What a front end adds to the terminal pad.
public struct PadSettings: @unchecked Sendable {
    /// Sees each decoded terminal event first; true consumes it (remote's text line).
    public var filter: (@Sendable (TerminalEvent) -> Bool)?
    /// The status line's device part, when the front end has its own (remote's link).
    public var deviceLine: (@Sendable () -> String?)?
    /// Messages shown on the pad while it is drawn (the instrument's own otherwise).
    public var notices: PadNotices?
    /// See the pad port's events too (remote's link forwards them).
    public var observers: [ControlEventObserver] = []

    public init(filter: (@Sendable (TerminalEvent) -> Bool)? = nil, deviceLine: (@Sendable () -> String?)? = nil,
                notices: PadNotices? = nil, observers: [ControlEventObserver] = []) {
        self.filter = filter
        self.deviceLine = deviceLine
        self.notices = notices
        self.observers = observers
    }
}
