// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// The remote's text line, between the terminal's decoder and the pad: a `/` typed
/// outside a text line opens one; text keys type into it, Enter sends it (`onText`), Esc
/// or Ctrl-C cancels (and goes no further: Esc is the pad's panic key, which would also
/// end every held note), Backspace deletes a character. Mouse reports, pastes and other
/// keys cancel the line and reach the pad. It sees decoded `TerminalEvent`s (the terminal is
/// read and decoded once, by `TerminalInput`), so a `/` inside a mouse report or a paste
/// is never taken for the key.
///
/// `play --bluetooth` uses only `intercept` (y/n answer an invitation) without the line.
/// - Thread: `filter` on the terminal reader's thread; `line` from any.
public final class RemoteKeyboard: @unchecked Sendable {
    private let onText: @Sendable (String) -> Void
    /// The line being typed, UTF-8 (nil when not typing).
    private let typing = Mutex<[UInt8]?>(nil)
    /// Whether `/` opens a text line (the remote); `play` uses only `intercept`.
    private let textLine: Bool
    /// Sees each plain character key pressed outside a text line (its ASCII byte);
    /// true consumes it.
    private let intercept: (@Sendable (UInt8) -> Bool)?
    /// Longest line, UTF-8 bytes (the peer protocol's TEXT: `PeerProtocol.maxTextBytes`).
    private let maxTextBytes: Int

    public init(onText: @escaping @Sendable (String) -> Void, textLine: Bool = true, maxTextBytes: Int = 200,
                intercept: (@Sendable (UInt8) -> Bool)? = nil) {
        self.onText = onText
        self.maxTextBytes = maxTextBytes
        self.textLine = textLine
        self.intercept = intercept
    }

    /// The line being typed (nil when not typing), for the status line.
    /// - Thread: any.
    public var line: String? { typing.withLock { $0.map { String(decoding: $0, as: UTF8.self) } } }

    /// One decoded event from the terminal: true when it was consumed here, false when it
    /// goes on to the pad. - Thread: the terminal reader's.
    public func filter(_ event: TerminalEvent) -> Bool {
        if let line = typing.withLock({ $0 }) { return typed(event, line) }
        guard case .key(let k) = event, k.kind == .press, case .char(let s) = k.key, s.isASCII,
              k.modifiers.subtracting(KeyModifiers.locks.union(.shift)).isEmpty else { return false }
        if let intercept, intercept(UInt8(s.value)) { return true }
        if textLine, s == "/" {
            typing.withLock { $0 = [] }
            return true
        }
        return false
    }

    /// An event while a line is typed.
    private func typed(_ event: TerminalEvent, _ line: [UInt8]) -> Bool {
        switch event {
        case .kittyFlags, .focus:
            return false  // the terminal's reply or report, not the player's typing
        case .mouse, .paste:
            typing.withLock { $0 = nil }
            return false
        case .key(let k):
            if k.kind == .release { return true }
            let mods = k.modifiers.subtracting(.locks)
            var line = line
            switch k.key {
            case .enter:
                typing.withLock { $0 = nil }
                onText(String(decoding: line, as: UTF8.self))
            case .backspace:
                while let last = line.popLast(), last & 0xc0 == 0x80 {}   // a whole UTF-8 character
                typing.withLock { $0 = line }
            case .char("c") where mods == .ctrl, .escape:
                typing.withLock { $0 = nil }
            case .char(let s) where mods.isDisjoint(with: [.ctrl, .alt, .super, .hyper, .meta]):
                let bytes = Array(String(Character(s)).utf8)
                if s.value >= 0x20, line.count + bytes.count <= maxTextBytes {
                    line += bytes
                    typing.withLock { $0 = line }
                }
            case .char, .tab:
                break  // other control keys: ignored
            default:
                typing.withLock { $0 = nil }   // Esc, arrows, …: cancel; the key reaches the pad
                return false
            }
            return true
        }
    }
}
