// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Glibc

/// Writes a line to standard error (messages, notes; standard output is for results).
/// Controls other than newline are written out (`UntrustedText`): a message that quotes
/// a file, a device or a peer never drives the terminal, whoever forgot to escape it.
public func printErr(_ message: String) {
    var line = UntrustedText.escaped(message, keepingNewlines: true)
    line += "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

/// Writes a line the program made itself to standard error as it is, escapes and all
/// (the web pad's QR code, drawn in colours): never text from outside.
func printOwnLineErr(_ line: String) {
    let line = line + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

/// Writes a line to standard output at once (no buffering: a script waiting for it reads
/// it while play runs). Controls other than newline are written out, as `printErr`'s.
func printLineOut(_ message: String) {
    let line = UntrustedText.escaped(message, keepingNewlines: true) + "\n"
    _ = line.withCString { write(1, $0, strlen($0)) }
}

/// Writes a warning about the input (a touch never lifted, a key others can read).
func warn(_ message: String) { printErr("bendsynth: warning: \(message)") }
