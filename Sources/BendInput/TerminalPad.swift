// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

/// Turns decoded terminal events into pad touches and tilt (`ControlEvent`s), keeping
/// the state that needs: which mouse button holds the mouse touch, which keys hold key
/// touches, the tilt. Independent of the engine: the caller sends the returned events
/// to a `ControlPort`.
///
/// Bindings:
/// * mouse: left, middle or right button press = touch down at the cell, drag = move,
///   release = up (one mouse touch, id `mouseTouchID`, down while any of those buttons
///   is held); motion without a button and the wheel do nothing. A release ends the held
///   button it names; a release naming no held button (some terminals report every SGR
///   release as button 0, urxvt/X10 name none) ends the most recently pressed held
///   button. The touch ends when no button is held, so a release never leaves a voice.
/// * letter keys `wertyuiop` / `asdfghjkl` / `zxcvbnm` (q quits): a touch each on a note
///   of the scale, each row a register (`KeyLayout`), as a pitch ratio. Where the terminal reports key releases (kitty keyboard protocol with flag 2, learnt from the `CSI ?flags u` reply or from any release) a key
///   sounds while held (matched on the key code, so Shift released first still ends it;
///   repeats are ignored); elsewhere presses follow `KeyRepeatRuns`: a held key (its
///   auto-repeats) plays one note until `repeatWindow` after its last repeat, a tap
///   latches the note and a later tap stops it.
/// * space: sustain (`ControlEvent.sustain`): held while the key is held where the
///   terminal reports releases, elsewhere like a letter key (`KeyRepeatRuns`).
/// * ← / → : tilt −/+ 0.1 (press and repeat), ↓ or `0`: tilt back to 0.
/// * Escape: panic, ends every touch (keys and mouse) and lets sustain go, once per press.
/// * focus-out (mode 1004): the same, since the releases of what is held will not come.
/// * `q`, `Q` or Ctrl-C: sets `quitRequested`.
/// * paste: ignored (pasted text never plays notes).
///
/// Times: `handle(_:at:)` takes the monotonic time of each event and `tick(at:)` applies
/// the key-repeat timeouts due (the reader calls it at `nextDeadline`).
/// - Thread: one thread at a time (the terminal reader's).
public struct TerminalPad: Sendable {
    /// The touch id of the mouse.
    public static let mouseTouchID: UInt32 = 0
    /// Tilt change per ← / → press (tilt range −1…+1).
    public static let tiltStep = 0.1

    /// One sounding touch, for the screen.
    public struct Touch: Sendable, Equatable {
        public var id: UInt32
        /// Pad coordinates, 0…1.
        public var x: Double
        public var y: Double
        /// What plays it: `●` for the mouse, the key's capital letter.
        public var label: Character
        /// A key's pitch ratio (it plays no pad position); nil for the mouse.
        public var ratio: Double? = nil
        /// When it went down, counting downs (a later touch has a higher number): the
        /// screen gives the newer touch's label its place.
        public var order: UInt64 = 0
    }

    /// Where the pad is on the screen (mouse reports are mapped through it).
    public var geometry: PadGeometry
    /// True when key presses hold (kitty releases) rather than toggle.
    public private(set) var reportsKeyReleases = false
    /// `q` or Ctrl-C was pressed.
    public private(set) var quitRequested = false
    /// How many times Escape acted (panic).
    public private(set) var panicCount = 0
    /// How many focus-outs ended what was held.
    public private(set) var focusLossCount = 0
    /// The key-repeat rule of terminals without key releases.
    public var keyRuns = KeyRepeatRuns()
    /// True while sustain is on (space held, or toggled on).
    public private(set) var sustained = false
    /// What each letter key plays (`KeyLayout.standard` until the reader gives the active
    /// scale's).
    public var keys = KeyLayout.standard
    /// Tilt in 0.1 steps, −10…10.
    private var tiltSteps = 0
    /// Downs so far (`Touch.order`).
    private var downs: UInt64 = 0
    private var held: [UInt32: Touch] = [:]
    /// The mouse buttons held (left, middle, right), in the order they were pressed.
    private var mouseButtons: [MouseButton] = []

    public init(geometry: PadGeometry) {
        self.geometry = geometry
    }

    /// Current tilt, −1…+1.
    public var tilt: Double { Double(tiltSteps) / 10 }

    /// Touches down now, by id.
    public var touches: [Touch] { held.values.sorted { $0.id < $1.id } }

    /// The touch id of letter key `letter` (lowercase a…z).
    public static func touchID(forKey letter: Unicode.Scalar) -> UInt32 { 0x100 + letter.value }
    /// The space bar's key in `keyRuns`.
    static let spaceRunKey: UInt32 = 0x20

    /// When `tick(at:)` next has something to do (monotonic nanoseconds), or nil.
    public var nextDeadline: UInt64? { reportsKeyReleases ? nil : keyRuns.nextDeadline }

    /// Applies the key-repeat timeouts due by `nanos`: a note held by auto-repeat ends
    /// `keyRuns.repeatWindow` after its last repeat.
    public mutating func tick(at nanos: UInt64) -> [ControlEvent] {
        var events: [ControlEvent] = []
        for key in keyRuns.expired(at: nanos) {
            if key == Self.spaceRunKey {
                if sustained { sustained = false; events.append(.sustain(false)) }
            } else {
                events += up(key)
            }
        }
        return events
    }

    /// The events for each of `events`, received at monotonic time `nanos`, in order
    /// (timeouts due by then are applied first).
    public mutating func handle(_ events: [TerminalEvent], at nanos: UInt64) -> [ControlEvent] {
        tick(at: nanos) + events.flatMap { handle($0, at: nanos) }
    }

    /// The events for each of `events`, in order, all at time 0 (tests).
    public mutating func handle(_ events: [TerminalEvent]) -> [ControlEvent] {
        events.flatMap { handle($0, at: 0) }
    }

    /// The control events for one terminal event at time 0 (tests).
    public mutating func handle(_ event: TerminalEvent) -> [ControlEvent] { handle(event, at: 0) }

    /// The control events for one terminal event received at monotonic time `nanos`
    /// (often none). Call `tick(at:)` first when time has passed.
    public mutating func handle(_ event: TerminalEvent, at nanos: UInt64) -> [ControlEvent] {
        switch event {
        case .paste:
            return []
        case let .kittyFlags(flags):
            reportsKeyReleases = flags & 2 != 0
            if reportsKeyReleases { keyRuns.removeAll() }
            return []
        case .focus(true):
            return []
        case .focus(false):
            guard !held.isEmpty || sustained else { return [] }
            focusLossCount += 1
            return end()
        case let .mouse(report):
            return handleMouse(report)
        case let .key(key):
            return handleKey(key, at: nanos)
        }
    }

    /// Ends every touch (the terminal hung up, or the player quit): an `.up` for each,
    /// by id, then sustain let go (so the touches it held end too).
    public mutating func end() -> [ControlEvent] {
        var events = touches.map(Self.upEvent)
        held.removeAll()
        mouseButtons.removeAll()
        keyRuns.removeAll()
        if sustained {
            sustained = false
            events.append(.sustain(false))
        }
        return events
    }

    /// Space: sustain held (releases reported) or by `KeyRepeatRuns`.
    private mutating func handleSpace(_ kind: KeyEventKind, at nanos: UInt64) -> [ControlEvent] {
        let on: Bool
        switch kind {
        case .press where reportsKeyReleases: on = true
        case .press:
            guard keyRuns.press(Self.spaceRunKey, at: nanos, sounding: sustained) == .toggle else { return [] }
            on = !sustained
        case .repeat: return []
        case .release: guard reportsKeyReleases else { return [] }; on = false
        }
        guard on != sustained else { return [] }
        sustained = on
        return [.sustain(on)]
    }

    private mutating func handleMouse(_ report: MouseReport) -> [ControlEvent] {
        let id = Self.mouseTouchID
        let (x, y) = geometry.point(column: report.column, row: report.row)
        switch report.kind {
        case .press:
            guard let button = report.button, button == .left || button == .middle || button == .right else { return [] }
            if !mouseButtons.contains(button) { mouseButtons.append(button) }
            if held[id] == nil { return down(id, x, y, label: "●") }
            return move(id, x, y)
        case .drag:
            return mouseButtons.isEmpty ? [] : move(id, x, y)
        case .release:
            if case .extra? = report.button { return [] }  // buttons 8–11 play nothing
            guard !mouseButtons.isEmpty else { return [] }
            // The button it names, else (button 0 for any, or none named) the latest held.
            let index = report.button.flatMap { mouseButtons.firstIndex(of: $0) } ?? mouseButtons.count - 1
            mouseButtons.remove(at: index)
            return mouseButtons.isEmpty ? up(id) : []
        case .motion, .wheelUp, .wheelDown, .wheelLeft, .wheelRight:
            return []
        }
    }

    private mutating func handleKey(_ event: KeyEvent, at nanos: UInt64) -> [ControlEvent] {
        if event.kind == .release && !reportsKeyReleases {
            reportsKeyReleases = true
            keyRuns.removeAll()
        }
        let modifiers = event.modifiers.subtracting(.locks)
        switch event.key {
        case .char(" ") where modifiers.subtracting(.shift).isEmpty:
            return handleSpace(event.kind, at: nanos)
        case .char(let scalar):
            let letter = scalar.isASCII && (65...90).contains(scalar.value) ? Unicode.Scalar(scalar.value + 32)! : scalar
            if event.kind == .press {
                if letter == "c" && modifiers == .ctrl || letter == "q" && modifiers.subtracting(.shift).isEmpty {
                    quitRequested = true
                    return []
                }
                if letter == "0" && modifiers.isEmpty { return setTilt(0) }
            }
            guard let key = keys.key(letter) else { return [] }
            let id = Self.touchID(forKey: letter)
            let plain = modifiers.subtracting(.shift).isEmpty
            switch event.kind {
            case .press where reportsKeyReleases:
                guard plain, held[id] == nil else { return [] }
                return down(id, key, label: Character(String(letter).uppercased()))
            case .press:
                guard plain, keyRuns.press(id, at: nanos, sounding: held[id] != nil) == .toggle else { return [] }
                return held[id] == nil ? down(id, key, label: Character(String(letter).uppercased())) : up(id)
            case .repeat:
                return []
            case .release:
                return reportsKeyReleases ? up(id) : []
            }
        case .left where event.kind != .release:
            return setTilt(tiltSteps - 1)
        case .right where event.kind != .release:
            return setTilt(tiltSteps + 1)
        case .down where event.kind == .press:
            return setTilt(0)
        case .escape where event.kind == .press:
            panicCount += 1
            return end()
        default:
            return []
        }
    }

    private mutating func down(_ id: UInt32, _ x: Double, _ y: Double, label: Character) -> [ControlEvent] {
        downs += 1
        held[id] = Touch(id: id, x: x, y: y, label: label, order: downs)
        return [.touch(id: id, phase: .down, x: x, y: y)]
    }

    /// A key goes down at its note: a pitched touch at `KeyLayout.gain`.
    private mutating func down(_ id: UInt32, _ key: KeyLayout.Key, label: Character) -> [ControlEvent] {
        downs += 1
        held[id] = Touch(id: id, x: key.x, y: KeyLayout.gain, label: label, ratio: key.ratio, order: downs)
        return [.pitched(id: id, phase: .down, ratio: key.ratio, gain: KeyLayout.gain, y: KeyLayout.gain)]
    }

    /// The end of `touch`, as it went down (a key's pitched, the mouse's at its point).
    static func upEvent(_ touch: Touch) -> ControlEvent {
        if let ratio = touch.ratio { return .pitched(id: touch.id, phase: .up, ratio: ratio, gain: touch.y, y: touch.y) }
        return .touch(id: touch.id, phase: .up, x: touch.x, y: touch.y)
    }

    private mutating func move(_ id: UInt32, _ x: Double, _ y: Double) -> [ControlEvent] {
        held[id]?.x = x
        held[id]?.y = y
        return [.touch(id: id, phase: .move, x: x, y: y)]
    }

    private mutating func up(_ id: UInt32) -> [ControlEvent] {
        guard let touch = held.removeValue(forKey: id) else { return [] }
        return [Self.upEvent(touch)]
    }

    private mutating func setTilt(_ steps: Int) -> [ControlEvent] {
        let steps = min(max(steps, -10), 10)
        guard steps != tiltSteps else { return [] }
        tiltSteps = steps
        return [.tilt(tilt)]
    }
}
