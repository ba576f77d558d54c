// SPDX-License-Identifier: GPL-3.0-or-later
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

extension MouseReport {
    /// Cb: button bits 0–1 (3 = none), 4 shift, 8 alt, 16 ctrl, 32 motion, 64 wheel,
    /// 128 buttons 8–11. `sgrRelease` is the SGR final (`m` = true); nil for urxvt/X10,
    /// whose release is button bits 3. Motion is decided by bit 32, never by the final.
    static func event(cb: Int, column: Int, row: Int, sgrRelease: Bool?) -> TerminalEvent? {
        guard cb >= 0, column >= 1, row >= 1 else { return nil }
        var modifiers: KeyModifiers = []
        if cb & 4 != 0 { modifiers.insert(.shift) }
        if cb & 8 != 0 { modifiers.insert(.alt) }
        if cb & 16 != 0 { modifiers.insert(.ctrl) }
        let low = cb & 3
        func report(_ kind: MouseKind, _ button: MouseButton?) -> TerminalEvent {
            .mouse(MouseReport(kind, button, column: column, row: row, modifiers: modifiers))
        }
        if cb & 64 != 0 && cb & 128 == 0 {
            if sgrRelease == true { return nil }  // wheels have no release
            let kinds: [MouseKind] = [.wheelUp, .wheelDown, .wheelLeft, .wheelRight]
            return report(kinds[low], nil)
        }
        let button: MouseButton? = cb & 128 != 0 ? .extra(8 + low + (cb & 64 != 0 ? 2 : 0))
            : [MouseButton.left, .middle, .right, nil][low]
        if cb & 32 != 0 {
            return button == nil ? report(.motion, nil) : report(.drag, button)
        }
        switch sgrRelease {
        case true?: return report(.release, button)
        case false?: return button == nil ? nil : report(.press, button)
        case nil: return button == nil ? report(.release, nil) : report(.press, button)
        }
    }
}
