// SPDX-License-Identifier: GPL-3.0-or-later
/// Decodes the bytes a terminal sends (keys, mouse reports, pastes, replies) into
/// `TerminalEvent`s, incrementally: a report split across reads is held until it is
/// complete, and no byte of an escape sequence is ever delivered as a typed key.
///
/// Protocols: SGR 1006 mouse (`CSI < b;x;y M/m`), urxvt 1015 (`CSI b;x;y M`), X10
/// (`CSI M cb cx cy`); kitty keys (`CSI code;mods:event u`, `CSI n;mods:event ~`,
/// `CSI 1;mods:event A…S`) and the `CSI ?flags u` reply; legacy `CSI A…D`, `SS3 A…D`;
/// control bytes (0x03 = Ctrl-C); UTF-8 text; bracketed paste (`CSI 200~`…`CSI 201~`);
/// focus reports (mode 1004: `CSI I` in, `CSI O` out).
///
/// Timeouts (all from the last byte received; `feed` and `tick` take the time):
/// * a lone ESC is the Escape key after `escapeTimeout` (default 100 ms: longer than the
///   60 ms split of RW-37, so a report split right after its ESC is not a spurious Escape;
///   with a shorter timeout a following `[<…M` is still decoded as a mouse report);
/// * an incomplete escape sequence is dropped (never typed) after `sequenceTimeout`;
/// * a paste whose end marker never comes ends after `pasteTimeout` (default 1 s).
/// - Thread: one thread at a time (a value type; the terminal reader's thread).
public struct TerminalDecoder: Sendable {
    /// Nanoseconds of silence after a lone ESC before it counts as the Escape key.
    public var escapeTimeout: UInt64
    /// Nanoseconds of silence after which an incomplete escape sequence is dropped.
    public var sequenceTimeout: UInt64
    /// Nanoseconds of silence that end a bracketed paste whose end marker was lost.
    public var pasteTimeout: UInt64

    private var buffer: [UInt8] = []
    private var lastByteAt: UInt64 = 0
    private var inPaste = false
    private var pasted: [UInt8] = []
    /// After a lone ESC timed out (or a sequence was cut short), `[<…M` without its ESC
    /// is still taken as an SGR mouse report (resynchronisation).
    private var resync = false

    /// The longest escape sequence kept; longer ones are dropped.
    static let maximumSequenceLength = 64
    static let pasteEnd: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]  // ESC [ 2 0 1 ~

    public init(escapeTimeout: UInt64 = 100_000_000, sequenceTimeout: UInt64 = 500_000_000,
                pasteTimeout: UInt64 = 1_000_000_000) {
        self.escapeTimeout = escapeTimeout
        self.sequenceTimeout = sequenceTimeout
        self.pasteTimeout = pasteTimeout
    }

    /// True while inside a bracketed paste.
    public var isInPaste: Bool { inPaste }

    /// When `tick` next has something to do (monotonic nanoseconds), or nil when nothing
    /// is pending: the reader polls no longer than this.
    public var nextDeadline: UInt64? {
        if inPaste { return lastByteAt &+ pasteTimeout }
        guard let first = buffer.first else { return nil }
        let wait = first == 0x1B && buffer.count >= 2 ? sequenceTimeout : escapeTimeout
        return lastByteAt &+ wait
    }

    /// Decodes `bytes` received at monotonic time `nanos`. Timeouts due by `nanos` are
    /// applied first (as if `tick` had been called).
    public mutating func feed(_ bytes: some Collection<UInt8>, at nanos: UInt64) -> [TerminalEvent] {
        var out = tick(at: nanos)
        guard !bytes.isEmpty else { return out }
        lastByteAt = nanos
        buffer.append(contentsOf: bytes)
        process(into: &out)
        return out
    }

    /// Applies the timeouts due by monotonic time `nanos`: a lone ESC becomes Escape, an
    /// incomplete sequence is dropped, a stuck paste ends.
    public mutating func tick(at nanos: UInt64) -> [TerminalEvent] {
        guard let deadline = nextDeadline, nanos >= deadline else { return [] }
        var out: [TerminalEvent] = []
        if inPaste {
            pasted.append(contentsOf: buffer)
            buffer.removeAll()
            out.append(.paste(String(decoding: pasted, as: UTF8.self)))
            pasted.removeAll()
            inPaste = false
            return out
        }
        if buffer == [0x1B] {
            out.append(.key(KeyEvent(.escape)))
            resync = true
        } else if buffer == [0x5B] {
            out.append(.key(KeyEvent(.char("["))))  // a typed `[` held back for resync
            resync = false
        } else {
            // The rest of a cut-short sequence or UTF-8 character: never typed.
            resync = buffer.first == 0x1B
        }
        buffer.removeAll()
        return out
    }

    // MARK: - Parsing

    private enum Step {
        case need
        case done(Int, TerminalEvent?)
        case pasteStart(Int)
    }

    private mutating func process(into out: inout [TerminalEvent]) {
        var i = 0
        loop: while i < buffer.count {
            if inPaste {
                while i < buffer.count {
                    pasted.append(buffer[i])
                    i += 1
                    if pasted.count >= 6, pasted.suffix(6).elementsEqual(Self.pasteEnd) {
                        pasted.removeLast(6)
                        out.append(.paste(String(decoding: pasted, as: UTF8.self)))
                        pasted.removeAll()
                        inPaste = false
                        break
                    }
                }
                continue
            }
            let armed = resync
            resync = false
            switch parse(at: i, resync: armed) {
            case .need:
                resync = armed
                break loop
            case let .done(n, event):
                if let event { out.append(event) }
                i += n
            case let .pasteStart(n):
                inPaste = true
                i += n
            }
        }
        buffer.removeFirst(i)
    }

    private mutating func parse(at i: Int, resync: Bool) -> Step {
        let b = buffer[i]
        let count = buffer.count
        if resync && b == 0x5B {  // `[` right after a timed-out ESC
            guard i + 1 < count else { return .need }
            if buffer[i + 1] == 0x3C {
                switch parseCSI(start: i, body: i + 1, headless: true) {
                case .need: return .need
                case let .done(n, e): return .done(n, e)
                case .pasteStart: break
                }
            }
            return .done(1, .key(KeyEvent(.char("["))))
        }
        switch b {
        case 0x1B:
            guard i + 1 < count else { return .need }
            let next = buffer[i + 1]
            switch next {
            case 0x5B:  // CSI
                return parseCSI(start: i, body: i + 2, headless: false)
            case 0x4F:  // SS3
                guard i + 2 < count else { return .need }
                let final = buffer[i + 2]
                let key = final == 0x4D ? .enter : Self.cursorKey(final)  // SS3 M: keypad Enter
                return .done(3, key.map { .key(KeyEvent($0)) })
            case 0x20..<0x7F, 0x80...:
                // Alt+key (the ESC prefix), for text keys.
                switch parseText(at: i + 1) {
                case .need:
                    return .need
                case .done(let n, .key(var k)?):
                    k.modifiers.insert(.alt)
                    return .done(n + 1, .key(k))
                default:
                    return .done(2, nil)
                }
            default:
                // ESC then another ESC or control byte: the first one was Escape.
                return .done(1, .key(KeyEvent(.escape)))
            }
        default:
            return parseText(at: i)
        }
    }

    /// A control byte or a UTF-8 character.
    private func parseText(at i: Int) -> Step {
        let b = buffer[i]
        switch b {
        case 0x0D, 0x0A: return .done(1, .key(KeyEvent(.enter)))
        case 0x09: return .done(1, .key(KeyEvent(.tab)))
        case 0x7F, 0x08: return .done(1, .key(KeyEvent(.backspace)))
        case 0x00: return .done(1, .key(KeyEvent(.char(" "), modifiers: .ctrl)))
        case 0x01...0x1A:  // Ctrl-A … Ctrl-Z (0x03 = Ctrl-C)
            return .done(1, .key(KeyEvent(.char(Unicode.Scalar(b + 0x60)), modifiers: .ctrl)))
        case 0x1B...0x1F:
            return .done(1, .key(KeyEvent(.char(Unicode.Scalar(b + 0x40)), modifiers: .ctrl)))
        case 0x20..<0x80:
            return .done(1, .key(KeyEvent(.char(Unicode.Scalar(b)))))
        default:
            let length: Int
            var value: UInt32
            switch b {
            case 0xC2...0xDF: length = 2; value = UInt32(b & 0x1F)
            case 0xE0...0xEF: length = 3; value = UInt32(b & 0x0F)
            case 0xF0...0xF4: length = 4; value = UInt32(b & 0x07)
            default: return .done(1, nil)  // stray continuation or invalid lead byte
            }
            for k in 1..<length {
                guard i + k < buffer.count else { return .need }
                let c = buffer[i + k]
                guard c & 0xC0 == 0x80 else { return .done(k, nil) }
                value = value << 6 | UInt32(c & 0x3F)
            }
            guard let scalar = Unicode.Scalar(value) else { return .done(length, nil) }
            return .done(length, .key(KeyEvent(.char(scalar))))
        }
    }

    /// A CSI sequence starting at `start` (ESC, or `[` when `headless`) whose parameter
    /// bytes begin at `body`.
    private func parseCSI(start: Int, body: Int, headless: Bool) -> Step {
        let count = buffer.count
        guard body < count else { return .need }
        if !headless && buffer[body] == 0x4D {  // X10: CSI M cb cx cy (raw bytes + 32)
            guard body + 3 < count else { return .need }
            let cb = Int(buffer[body + 1]) - 32, cx = Int(buffer[body + 2]) - 32, cy = Int(buffer[body + 3]) - 32
            return .done(body + 4 - start, MouseReport.event(cb: cb, column: cx, row: cy, sgrRelease: nil))
        }
        // An SGR mouse report (`CSI <`, the only one a terminal sends) runs to its `M`/`m`
        // even through bytes that would end another CSI, so a malformed report such as
        // `CSI <32;NaN;NaNM` (RW-32) is consumed whole.
        let sgr = buffer[body] == 0x3C
        var k = body
        while true {
            guard k < count, k - start <= Self.maximumSequenceLength else {
                // Too long to be anything we know: drop what we have.
                return k - start > Self.maximumSequenceLength ? .done(k - start, nil) : .need
            }
            let c = buffer[k]
            if sgr ? (c == 0x4D || c == 0x6D) : (0x40...0x7E).contains(c) { break }
            if sgr && (0x20...0x7E).contains(c) { k += 1; continue }
            // Anything but a parameter or intermediate byte ends the sequence unfinished:
            // drop it and decode that byte afresh (e.g. an ESC starting the next report).
            guard (0x20...0x3F).contains(c) else { return .done(k - start, nil) }
            k += 1
        }
        let final = buffer[k]
        let consumed = k + 1 - start
        var params = buffer[body..<k]
        var marker: UInt8? = nil
        if let first = params.first, (0x3C...0x3F).contains(first) {
            marker = first
            params = params.dropFirst()
        }
        // Intermediate bytes: nothing a terminal sends us.
        if params.contains(where: { $0 < 0x30 }) { return .done(consumed, nil) }
        guard let fields = Self.fields(params) else {
            // Malformed (e.g. `CSI <32;NaN;NaNM`): consumed whole and ignored.
            return .done(consumed, nil)
        }
        if headless && !(marker == 0x3C && (final == 0x4D || final == 0x6D)) {
            return .done(1, .key(KeyEvent(.char("["))))
        }
        let p0 = fields.first?.first ?? nil
        func field(_ n: Int, _ sub: Int = 0) -> Int? {
            n < fields.count && sub < fields[n].count ? fields[n][sub] : nil
        }
        switch (marker, final) {
        case (0x3C, 0x4D), (0x3C, 0x6D):  // SGR 1006
            guard fields.count == 3, let cb = field(0), let x = field(1), let y = field(2) else {
                return .done(consumed, nil)
            }
            return .done(consumed, MouseReport.event(cb: cb, column: x, row: y, sgrRelease: final == 0x6D))
        case (0x3F, 0x75):  // kitty flags reply
            return .done(consumed, .kittyFlags(p0 ?? 0))
        case (nil, 0x4D):  // urxvt 1015: Cb + 32, decimal
            guard fields.count == 3, let cb = field(0), let x = field(1), let y = field(2) else {
                return .done(consumed, nil)
            }
            return .done(consumed, MouseReport.event(cb: cb - 32, column: x, row: y, sgrRelease: nil))
        case (nil, 0x75):  // kitty: code[:shifted:base] ; mods[:event] ; text u
            guard let code = p0, let key = TerminalKey(kittyCode: code) else { return .done(consumed, nil) }
            return .done(consumed, Self.keyEvent(key, mods: field(1), event: field(1, 1)))
        case (nil, 0x7E):
            if p0 == 200 { return .pasteStart(consumed) }
            let key: TerminalKey? = switch p0 {
            case 2: .insert
            case 3: .delete
            case 5: .pageUp
            case 6: .pageDown
            case 1, 7: .home
            case 4, 8: .end
            case let n? where (11...15).contains(n): .function(n - 10)
            case let n? where (17...21).contains(n): .function(n - 11)
            case let n? where (23...26).contains(n): .function(n - 12)
            default: nil  // including a stray 201 (paste end)
            }
            guard let key else { return .done(consumed, nil) }
            return .done(consumed, Self.keyEvent(key, mods: field(1), event: field(1, 1)))
        case (nil, 0x49) where fields.isEmpty:  // CSI I: focus in (mode 1004)
            return .done(consumed, .focus(true))
        case (nil, 0x4F) where fields.isEmpty:  // CSI O: focus out
            return .done(consumed, .focus(false))
        case (nil, _):
            // nil: replies we did not ask for.
            guard let key = Self.cursorKey(final), p0 == nil || p0 == 1 else { return .done(consumed, nil) }
            return .done(consumed, Self.keyEvent(key, mods: field(1), event: field(1, 1)))
        default:
            return .done(consumed, nil)
        }
    }

    /// `a:b;c` → [[a, b], [c]]; empty parts are nil; nil when a part is not a number.
    private static func fields(_ bytes: ArraySlice<UInt8>) -> [[Int?]]? {
        var result: [[Int?]] = [[]]
        var value: Int? = nil
        for c in bytes {
            switch c {
            case 0x30...0x39:
                let v = (value ?? 0) &* 10 &+ Int(c - 0x30)
                guard v < 1 << 31 else { return nil }
                value = v
            case 0x3A:
                result[result.count - 1].append(value); value = nil
            case 0x3B:
                result[result.count - 1].append(value); value = nil
                result.append([])
            default:
                return nil
            }
        }
        result[result.count - 1].append(value)
        if result.count == 1 && result[0] == [nil] { return [] }
        return result
    }

    /// The key a cursor or F1–F4 sequence's final byte names (`CSI A`, `CSI 1;mods A`,
    /// `SS3 A`), or nil.
    private static func cursorKey(_ final: UInt8) -> TerminalKey? {
        switch final {
        case 0x41: .up
        case 0x42: .down
        case 0x43: .right
        case 0x44: .left
        case 0x48: .home
        case 0x46: .end
        case 0x50...0x53: .function(Int(final) - 0x50 + 1)
        default: nil
        }
    }

    private static func keyEvent(_ key: TerminalKey, mods: Int?, event: Int?) -> TerminalEvent {
        let kind: KeyEventKind = switch event {
        case 2: .repeat
        case 3: .release
        default: .press
        }
        let modifiers = KeyModifiers(rawValue: max((mods ?? 1) - 1, 0))
        return .key(KeyEvent(key, modifiers: modifiers, kind: kind))
    }
}
