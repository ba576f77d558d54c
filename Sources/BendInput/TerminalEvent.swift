/// One decoded input event from a terminal's byte stream.
public enum TerminalEvent: Sendable, Equatable {
    /// A mouse report (SGR 1006, urxvt 1015 or X10), 1-based cell coordinates.
    case mouse(MouseReport)
    /// A key press, repeat or release.
    case key(KeyEvent)
    /// Bracketed-paste content (`CSI 200~` … `CSI 201~`), never decoded into keys or mouse.
    case paste(String)
    /// The terminal's reply to the kitty keyboard query `CSI ?u`: the active flags
    /// (1 disambiguate, 2 report event types, 8 all keys as escape codes, …).
    case kittyFlags(Int)
}

/// Modifier keys (the kitty protocol's bits; legacy reports map onto them).
public struct KeyModifiers: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let shift = KeyModifiers(rawValue: 1)
    public static let alt = KeyModifiers(rawValue: 2)
    public static let ctrl = KeyModifiers(rawValue: 4)
    public static let `super` = KeyModifiers(rawValue: 8)
    public static let hyper = KeyModifiers(rawValue: 16)
    public static let meta = KeyModifiers(rawValue: 32)
    public static let capsLock = KeyModifiers(rawValue: 64)
    public static let numLock = KeyModifiers(rawValue: 128)
    /// Lock keys: they change produced text, not what a key means.
    public static let locks: KeyModifiers = [.capsLock, .numLock]
}

/// A key, by what it is (never by the text it produced: `s` with Shift is `.char("s")`
/// in the kitty protocol, so its release matches its press).
public enum TerminalKey: Sendable, Hashable {
    /// A text key: its Unicode scalar (kitty: the unshifted key code).
    case char(Unicode.Scalar)
    case escape, enter, tab, backspace
    case up, down, left, right
    case home, end, pageUp, pageDown, insert, delete
    /// F1…F35.
    case function(Int)
    case leftShift, leftControl, leftAlt, leftSuper
    case rightShift, rightControl, rightAlt, rightSuper
    case capsLock
    /// Any other kitty functional key code (57344…63743), e.g. keypad keys.
    case other(UInt32)
}

/// Press, auto-repeat or release (repeat and release only from the kitty protocol with
/// flag 2; legacy terminals report every key as a press).
public enum KeyEventKind: Sendable, Equatable {
    case press, `repeat`, release
}

public struct KeyEvent: Sendable, Equatable {
    public var key: TerminalKey
    public var modifiers: KeyModifiers
    public var kind: KeyEventKind
    public init(_ key: TerminalKey, modifiers: KeyModifiers = [], kind: KeyEventKind = .press) {
        self.key = key
        self.modifiers = modifiers
        self.kind = kind
    }
}

public enum MouseButton: Sendable, Equatable {
    case left, middle, right
    /// Buttons 8…11 (Cb bit 128).
    case extra(Int)
}

public enum MouseKind: Sendable, Equatable {
    /// A button went down (`button` says which).
    case press
    /// A button went up; `button` is nil for urxvt/X10 reports, which do not say which.
    case release
    /// The pointer moved with `button` held (Cb bit 32).
    case drag
    /// The pointer moved with no button held (Cb bit 32, button bits 3).
    case motion
    case wheelUp, wheelDown, wheelLeft, wheelRight
}

/// A decoded mouse report. Column and row are 1-based cells, full range (no 8-bit limit
/// in SGR/urxvt reports: column 300 stays 300).
public struct MouseReport: Sendable, Equatable {
    public var kind: MouseKind
    public var button: MouseButton?
    public var column: Int
    public var row: Int
    /// Shift, alt (meta) and ctrl from Cb bits 4, 8, 16.
    public var modifiers: KeyModifiers
    public init(_ kind: MouseKind, _ button: MouseButton?, column: Int, row: Int, modifiers: KeyModifiers = []) {
        self.kind = kind
        self.button = button
        self.column = column
        self.row = row
        self.modifiers = modifiers
    }
}
