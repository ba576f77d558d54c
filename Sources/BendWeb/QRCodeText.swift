// SPDX-License-Identifier: GPL-3.0-or-later
import CQRencode

/// A text as a QR code drawn in a terminal (libqrencode): two modules per character
/// cell with half blocks, black on white by ANSI colours whatever the terminal's theme,
/// with the 4-module quiet zone the standard asks for.
public enum QRCodeText {
    /// The modules of `text`'s QR code (error correction L, 8-bit mode), true = dark,
    /// rows top to bottom; nil when libqrencode refuses it (too long).
    public static func modules(_ text: String) -> [[Bool]]? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        return (0..<width).map { row in (0..<width).map { col in code.pointee.data[row * width + col] & 1 == 1 } }
    }

    /// The code as lines of text, each ending in a colour reset.
    public static func render(_ text: String) -> [String]? {
        guard let m = modules(text) else { return nil }
        let quiet = 4, size = m.count + 2 * quiet
        func dark(_ r: Int, _ c: Int) -> Bool {
            let r = r - quiet, c = c - quiet
            return r >= 0 && c >= 0 && r < m.count && c < m.count && m[r][c]
        }
        var lines: [String] = []
        for r in stride(from: 0, to: size, by: 2) {
            var line = "\u{1b}[30;107m"  // black on bright white
            for c in 0..<size {
                switch (dark(r, c), r + 1 < size && dark(r + 1, c)) {
                case (false, false): line += " "
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (true, true): line += "█"
                }
            }
            lines.append(line + "\u{1b}[0m")
        }
        return lines
    }
}
