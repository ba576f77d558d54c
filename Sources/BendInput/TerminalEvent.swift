// SPDX-License-Identifier: GPL-3.0-or-later
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
    /// Focus reporting (mode 1004): the terminal window gained (`CSI I`, true) or lost
    /// (`CSI O`, false) the keyboard focus. After a focus-out no key or button release
    /// comes for what was held.
    case focus(Bool)
}
