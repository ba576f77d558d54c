// SPDX-License-Identifier: GPL-3.0-or-later
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

extension TerminalKey {
    /// Kitty key codes: Unicode scalars for text keys, a few C0 codes, private-use codes
    /// 57344… for functional keys.
    init?(kittyCode code: Int) {
        switch code {
        case 27: self = .escape
        case 13: self = .enter
        case 9: self = .tab
        case 127, 8: self = .backspace
        case 57358: self = .capsLock
        case 57376...57398: self = .function(code - 57376 + 13)
        case 57441: self = .leftShift
        case 57442: self = .leftControl
        case 57443: self = .leftAlt
        case 57444: self = .leftSuper
        case 57447: self = .rightShift
        case 57448: self = .rightControl
        case 57449: self = .rightAlt
        case 57450: self = .rightSuper
        case 57344...63743: self = .other(UInt32(code))
        default:
            guard code >= 32, let s = Unicode.Scalar(UInt32(code)) else { return nil }
            self = .char(s)
        }
    }
}
