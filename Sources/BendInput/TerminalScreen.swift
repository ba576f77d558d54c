// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import Glibc

/// Draws the pad screen and holds the terminal mode strings.
///
/// Layout (rows × columns): row 1 device line; row 2 the pad's top border with ratio
/// labels; rows 3…rows−4 the pad (inside a `│` border: columns 2…columns−1); row rows−3
/// the bottom border; row rows−2 the touches (or the notice, while one is shown); row rows−1 pan, level, voices, xruns (with a device);
/// row rows the help line. Single-width characters only.
/// - Thread: any (pure functions).
public enum TerminalScreen {
    /// Sent once at start: alternate screen, hidden cursor, no autowrap, clear; mouse
    /// press/release (1000) with drag (1002), urxvt (1015) then SGR (1006) coordinates
    /// (xterm takes the last one set, urxvt without 1006 keeps 1015); bracketed paste
    /// (2004); focus reports (1004: a focus-out ends what is held, whose releases will
    /// not come); kitty keyboard flags 11 pushed (1 disambiguate | 2 event types | 8 all keys
    /// as escapes) and queried (`CSI ?u`, the reply says whether keys can be held).
    public static let enter = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[2J"
        + "\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1015h\u{1B}[?1006h"
        + "\u{1B}[?2004h\u{1B}[?1004h"
        + "\u{1B}[>11u\u{1B}[?u"

    /// Sent at exit, undoing `enter` in reverse: kitty flags popped, focus reports, paste and mouse off,
    /// attributes reset, autowrap and cursor back, main screen.
    public static let exit = "\u{1B}[<u"
        + "\u{1B}[?1004l\u{1B}[?2004l"
        + "\u{1B}[?1006l\u{1B}[?1015l\u{1B}[?1002l\u{1B}[?1000l"
        + "\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"

    /// Smallest terminal the pad is drawn in.
    public static let minimumColumns = 24, minimumRows = 8

    /// The pad's inner cells on a `columns` × `rows` terminal.
    public static func layout(columns: Int, rows: Int) -> PadGeometry {
        PadGeometry(left: 2, top: 3, width: columns - 2, height: rows - 6)
    }

    /// The frame as plain text, one string per row (no colours): for tests and logs.
    public static func lines(_ status: PadStatus, columns: Int, rows: Int) -> [String] {
        canvas(status, columns: columns, rows: rows).cells.map { String($0.map(\.character)) }
    }

    /// The frame as ANSI text: every row written in full from its first column (so no
    /// clear is needed between frames of the same size).
    public static func frame(_ status: PadStatus, columns: Int, rows: Int) -> String {
        let canvas = canvas(status, columns: columns, rows: rows)
        var out = ""
        for (r, row) in canvas.cells.enumerated() {
            out += "\u{1B}[\(r + 1);1H"
            var style = Style.plain
            out += style.sgr
            for cell in row {
                if cell.style != style {
                    style = cell.style
                    out += style.sgr
                }
                out.append(cell.character)
            }
        }
        return out + Style.plain.sgr
    }

    // MARK: - Drawing

    enum Style: Equatable {
        case plain, faint, marker, good, warn, bad
        var sgr: String {
            switch self {
            case .plain: "\u{1B}[0m"
            case .faint: "\u{1B}[0;2m"
            case .marker: "\u{1B}[0;1;7m"
            case .good: "\u{1B}[0;32m"
            case .warn: "\u{1B}[0;33m"
            case .bad: "\u{1B}[0;1;31m"
            }
        }
    }

    struct Cell: Equatable {
        var character: Character = " "
        var style: Style = .plain
    }

    struct Canvas {
        var cells: [[Cell]]
        let columns: Int
        init(columns: Int, rows: Int) {
            self.columns = columns
            cells = Array(repeating: Array(repeating: Cell(), count: columns), count: rows)
        }
        /// Writes `text` from 1-based (column, row), clipped to the row.
        mutating func put(_ text: String, column: Int, row: Int, style: Style = .plain, limit: Int? = nil) {
            guard row >= 1, row <= cells.count else { return }
            var c = column
            let end = min(limit ?? columns, columns)
            // Nothing drawn drives the terminal: a peer's name or a device's reaches here
            // escaped already; this is the last guard (styles are the cells', never text).
            for ch in UntrustedText.escaped(text) {
                guard c <= end else { break }
                if c >= 1 { cells[row - 1][c - 1] = Cell(character: ch, style: style) }
                c += 1
            }
        }
    }

    static func canvas(_ status: PadStatus, columns: Int, rows: Int) -> Canvas {
        var canvas = unicodeCanvas(status, columns: columns, rows: rows)
        if status.charset == .ascii {
            for r in canvas.cells.indices {
                for c in canvas.cells[r].indices { canvas.cells[r][c].character = TerminalCharset.ascii(canvas.cells[r][c].character) }
            }
        }
        return canvas
    }

    static func unicodeCanvas(_ status: PadStatus, columns: Int, rows: Int) -> Canvas {
        var canvas = Canvas(columns: max(columns, 0), rows: max(rows, 0))
        guard columns >= minimumColumns, rows >= minimumRows else {
            canvas.put("enlarge the terminal to \(minimumColumns)×\(minimumRows)", column: 1, row: 1)
            return canvas
        }
        let pad = layout(columns: columns, rows: rows)
        let right = pad.left + pad.width - 1, bottom = pad.top + pad.height - 1

        canvas.put("bendsynth · " + status.device, column: 1, row: 1)

        // Border.
        canvas.put("┌" + String(repeating: "─", count: pad.width) + "┐", column: 1, row: pad.top - 1)
        canvas.put("└" + String(repeating: "─", count: pad.width) + "┘", column: 1, row: bottom + 1)
        for r in pad.top...bottom {
            canvas.put("│", column: 1, row: r)
            canvas.put("│", column: columns, row: r)
        }
        canvas.put(" gain 1 ", column: 3, row: pad.top - 1, style: .faint)
        canvas.put(" gain 0 ", column: 3, row: bottom + 1, style: .faint)

        let middleRow = pad.cell(x: 0, y: 0.5).row
        for c in pad.left...right { canvas.put("┄", column: c, row: middleRow, style: .faint) }
        if status.guides.isEmpty {
            drawRatioGrid(&canvas, status, pad: pad, middleRow: middleRow)
        } else {
            drawGuides(&canvas, status.guides, pad: pad, middleRow: middleRow)
        }

        // Touches: numbers first, markers on top so none hides another's marker; the
        // other sources' markers (faint, their source's mark) under the pad's own.
        for touch in status.others {
            let cell = pad.cell(x: touch.x, y: touch.y)
            canvas.put(String(touch.label), column: cell.column, row: cell.row, style: .warn)
        }
        for (text, column, row) in touchLabels(status, pad: pad) {
            canvas.put(text, column: column, row: row, limit: right)
        }
        for touch in status.touches {
            let cell = pad.cell(x: touch.x, y: touch.y)
            canvas.put(String(touch.label), column: cell.column, row: cell.row, style: .marker)
        }

        // Touch list.
        // Touch list: the pad's own, then the others; what does not fit is "+N".
        let entries = (status.touches + status.others).map {
            "\($0.label) \(pitchText($0, status)) g\(number($0.gain, decimals: 2))"
        }
        var list = entries.isEmpty ? "no touches" : ""
        for (i, entry) in entries.enumerated() {
            let more = entries.count - i - 1
            let tail = more > 0 ? "  +\(more)" : ""
            let next = (list.isEmpty ? "" : list + "  ") + entry
            if next.count + tail.count > columns {
                list += (list.isEmpty ? "" : "  ") + "+\(entries.count - i)"
                break
            }
            list = next
        }
        if let notice = status.notice {
            canvas.put("▸ " + notice, column: 1, row: rows - 2, style: .warn)
        } else {
            canvas.put(list, column: 1, row: rows - 2)
        }

        // Pan bar, level meter, voices, xruns (and input events played late, if any).
        var c = 1
        func add(_ text: String, _ style: Style = .plain) {
            canvas.put(text, column: c, row: rows - 1, style: style)
            c += text.count
        }
        // Narrower than 80 columns the voices and xruns come first, so they stay in view.
        let narrow = columns < 80
        if narrow {
            add("voices \(status.voices)  ")
            if let xruns = status.xruns { add("xruns \(xruns)", xruns > 0 ? .warn : .plain) }
            if status.lateEvents > 0 { add("  late \(status.lateEvents)", .warn) }
            if status.sustained { add("  SUSTAIN", .warn) }
            add("  ")
        }
        let panCells = 15
        let panIndex = Int(((min(max(status.pan.isNaN ? 0 : status.pan, -1), 1) + 1) / 2 * Double(panCells - 1)).rounded())
        add("pan L")
        add(String((0..<panCells).map { $0 == panIndex ? "●" : $0 == panCells / 2 ? "┼" : "─" }))
        add("R " + (status.pan >= 0 ? "+" : "") + number(status.pan, decimals: 2) + "  ")
        let meterCells = 15
        let db = status.peak > 0 ? 20 * log10(status.peak) : -.infinity
        let lit = db.isFinite ? min(max(Int(((db + 60) / 60 * Double(meterCells)).rounded()), 0), meterCells) : 0
        for i in 0..<meterCells {
            let level = -60 + Double(i + 1) * 60 / Double(meterCells)
            add(i < lit ? "▮" : "·", i >= lit ? .faint : level > -6 ? .bad : level > -18 ? .warn : .good)
        }
        let dbText = status.peak > 1 ? " CLIP" : db.isFinite ? " " + number(db, decimals: 1) + " dBFS" : " -inf dBFS"
        add(dbText, status.peak > 1 ? .bad : .plain)
        if status.limiterGain < 1 {
            add(" GR " + number(20 * log10(max(status.limiterGain, 1e-6)), decimals: 1) + " dB", .warn)
        }
        if !narrow {
            add("  voices \(status.voices)  ")
            if let xruns = status.xruns { add("xruns \(xruns)", xruns > 0 ? .warn : .plain) }
            if status.lateEvents > 0 { add("  late \(status.lateEvents)", .warn) }
            if status.sustained { add("  SUSTAIN", .warn) }
        }

        let keys = status.keysHold ? "hold keys · hold space sustain" : "keys on/off · space sustain"
        canvas.put("mouse · \(keys) · ←/→ tilt · ↓ centre · Esc off · q quit",
                   column: 1, row: rows, style: .faint)
        return canvas
    }

    /// Faint grid without a scale: ratio lines at x = ¼, ½, ¾ (labelled in the top
    /// border), gain ½.
    static func drawRatioGrid(_ canvas: inout Canvas, _ status: PadStatus, pad: PadGeometry, middleRow: Int) {
        let right = pad.left + pad.width - 1, bottom = pad.top + pad.height - 1
        var labelEnd = 3 + 8  // after " gain 1 "
        for x in [0.25, 0.5, 0.75] {
            let column = pad.cell(x: x, y: 0).column
            for r in pad.top...bottom {
                canvas.put(r == middleRow ? "┼" : "┆", column: column, row: r, style: .faint)
            }
            let label = " ×" + number(status.pitchMap.ratio(x: x), decimals: 2, trim: true) + " "
            let start = column - label.count / 2
            if start > labelEnd, start + label.count <= right {
                canvas.put(label, column: start, row: pad.top - 1, style: .faint)
                labelEnd = start + label.count
            }
        }
    }

    /// A scale's steps: a faint line per step (`│` on the root's degree, `┆` on the
    /// others; where two share a column the first wins), labelled in the top border
    /// where the label fits (roots first, then the other steps left to right).
    static func drawGuides(_ canvas: inout Canvas, _ guides: [ScaleGuide], pad: PadGeometry, middleRow: Int) {
        let right = pad.left + pad.width - 1, bottom = pad.top + pad.height - 1
        // Roots first, then the others, each left to right.
        let ordered = guides.filter { $0.degree == 0 } + guides.filter { $0.degree != 0 }
        var taken = Set<Int>()
        for g in ordered {
            let column = pad.cell(x: g.x, y: 0).column
            guard taken.insert(column).inserted else { continue }
            for r in pad.top...bottom {
                canvas.put(r == middleRow ? "┼" : g.degree == 0 ? "│" : "┆", column: column, row: r, style: .faint)
            }
        }
        // Labels: " gain 1 " keeps columns 3…10; a label needs a free column either side.
        var used = Array(repeating: false, count: right + 2)
        for c in 1...min(11, right + 1) { used[c] = true }
        for g in ordered {
            let column = pad.cell(x: g.x, y: 0).column
            // The roots name their octave ("A4"), so every step's can be told.
            let label = g.degree == 0 ? g.name : g.label
            let start = column - (label.count - 1) / 2
            let end = start + label.count - 1
            guard start > pad.left, end < right else { continue }
            var free = true
            for c in (start - 1)...(end + 1) where used[c] { free = false }
            guard free else { continue }
            canvas.put(label, column: start, row: pad.top - 1, style: .faint)
            for c in start...end { used[c] = true }
        }
    }

    /// Where the pad's touches' labels go (text, column, row): the newest touch's first,
    /// beside its marker (right, else left) on its row, else stacked on the row above or
    /// below; a label that would overlap one placed already or cover a marker is left out
    /// (the touch list names every touch). Each label has a blank cell either side.
    static func touchLabels(_ status: PadStatus, pad: PadGeometry) -> [(text: String, column: Int, row: Int)] {
        let right = pad.left + pad.width - 1, bottom = pad.top + pad.height - 1
        let markers = Set((status.touches + status.others).map { t -> Int in
            let c = pad.cell(x: t.x, y: t.y)
            return c.row * 100_000 + c.column
        })
        var placed: [(text: String, column: Int, row: Int)] = []
        for touch in status.touches.sorted(by: { ($0.order, $0.id) > ($1.order, $1.id) }) {
            let cell = pad.cell(x: touch.x, y: touch.y)
            let text = " " + pitchText(touch, status) + " g" + number(touch.gain, decimals: 2) + " "
            let n = text.count
            // (row, first column): right of the marker, left of it; then a row up, a row down.
            var candidates = [(cell.row, cell.column + 1), (cell.row, cell.column - n)]
            for row in [cell.row - 1, cell.row + 1] { candidates += [(row, cell.column), (row, cell.column - n + 1)] }
            let spot = candidates.first { row, start in
                guard row >= pad.top, row <= bottom, start >= pad.left, start + n - 1 <= right else { return false }
                if (start..<(start + n)).contains(where: { markers.contains(row * 100_000 + $0) }) { return false }
                return !placed.contains { $0.row == row && $0.column < start + n && start < $0.column + $0.text.count }
            }
            if let (row, start) = spot { placed.append((text, start, row)) }
        }
        return placed
    }

    /// A touch's pitch as shown: the nearest step with its octave and the offset in cents
    /// with a scale ("A#4+30¢", "3-5¢"); without, its ratio and the nearest note
    /// ("×1.08 A#4+33¢"), or the ratio alone when no names are given.
    static func pitchText(_ touch: PadStatus.Touch, _ status: PadStatus) -> String {
        if let tuning = status.tuning { return tuning.pitchText(ratio: touch.ratio) }
        let ratio = "×" + number(touch.ratio, decimals: 2)
        guard let names = status.names, touch.ratio > 0 else { return ratio }
        return ratio + " " + names.pitchText(ratio: touch.ratio)
    }

    /// `value` with `decimals` digits after the point ("-12.3"); `trim` drops trailing
    /// zeros ("1", "0.5").
    static func number(_ value: Double, decimals: Int, trim: Bool = false) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : value < 0 ? "-inf" : "inf" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((abs(value) * scale).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        let whole = scaled / Int(scale)
        var fraction = String(scaled % Int(scale))
        while fraction.count < decimals { fraction = "0" + fraction }
        if trim {
            while fraction.hasSuffix("0") { fraction.removeLast() }
        }
        return sign + String(whole) + (fraction.isEmpty ? "" : "." + fraction)
    }
}
