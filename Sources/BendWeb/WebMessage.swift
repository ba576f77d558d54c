// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

/// One event of the page's (docs/WEB.md). A WebSocket text message holds one or more,
/// a line each (`\n` between them).
public enum WebMessage: Sendable, Equatable {
    /// `h TOKEN`: the pairing token from the URL's fragment; the first message.
    case hello(token: String)
    /// `d|m|u ID X Y T`: touch `id` (the page's pointer id) goes down, moves or goes up
    /// at (x, y) in pad coordinates (x 0…1 left to right, y 0…1 bottom to top);
    /// `clientTime` is the page's clock (ms, `performance.now()`), for the record only.
    case touch(id: UInt32, phase: TouchPhase, x: Double, y: Double, clientTime: Double)
    /// `t VALUE`: tilt, −1 (left) … +1 (right).
    case tilt(Double)
    /// `p T`: a ping; the instrument answers `P T XRUNS VOICES` at once.
    case ping(clientTime: Double)
    /// `s 1` / `s 0`: the page's sustain button goes down / is let go.
    case sustain(Bool)
    /// `f ID VALUE`: touch `id`'s second dimension, 0…1 (the pointer's pressure where the
    /// browser measures it, else its contact size), after its `d` or `m`: the voice's
    /// timbre (`ControlEvent.timbre`).
    case force(id: UInt32, value: Double)
    /// `x`: the page's panic button: every touch of every source ends, sustain included.
    case panic
}

/// Why a message was refused: the connection is closed with this as the reason.
public struct WebMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The page's messages, decoded strictly: nothing is clamped or guessed. A message that
/// breaks any rule is refused whole (and its connection closed by the caller).
/// Pure: no I/O, no state; fuzzed by BendWebTests.
public enum WebMessageDecoder {
    /// Bytes in one message at most (a WebSocket text message's payload).
    public static let maxMessageBytes = 1024
    /// Characters of a token at most.
    public static let maxTokenLength = 64
    /// Touch ids are 0…2³¹−1 (a browser's `pointerId` is a non-negative `long`).
    public static let maxTouchID: UInt32 = 0x7fff_ffff

    /// The events of one text message, in order.
    /// - Throws: `WebMessageError` naming the line and field and what was expected.
    public static func decode(_ bytes: some Collection<UInt8>) throws(WebMessageError) -> [WebMessage] {
        guard bytes.count <= maxMessageBytes else {
            throw WebMessageError("message of \(bytes.count) bytes; at most \(maxMessageBytes)")
        }
        guard !bytes.isEmpty else { throw WebMessageError("empty message") }
        var messages: [WebMessage] = []
        var lineNumber = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            messages.append(try decodeLine(Array(line), lineNumber: lineNumber))
        }
        return messages
    }

    static func decodeLine(_ line: [UInt8], lineNumber: Int) throws(WebMessageError) -> WebMessage {
        let at = "line \(lineNumber)"
        guard !line.isEmpty else { throw WebMessageError("\(at): empty line") }
        if let bad = line.firstIndex(where: { $0 < 0x20 || $0 > 0x7e }) {
            throw WebMessageError("\(at), byte \(bad + 1): 0x\(String(line[bad], radix: 16)) is not printable ASCII")
        }
        let fields = line.split(separator: 0x20, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        func count(_ n: Int, _ form: String) throws(WebMessageError) {
            guard fields.count == n else {
                throw WebMessageError("\(at): '\(fields[0])' takes \(n - 1) field\(n == 2 ? "" : "s") (\(form)), got \(fields.count - 1)")
            }
        }
        switch fields[0] {
        case "h":
            try count(2, "h TOKEN")
            let token = fields[1]
            guard !token.isEmpty, token.count <= maxTokenLength, token.utf8.allSatisfy(WebToken.isTokenByte) else {
                throw WebMessageError("\(at): token: expected 1…\(maxTokenLength) of A-Z a-z 0-9 - _")
            }
            return .hello(token: token)
        case "d", "m", "u":
            try count(5, "\(fields[0]) ID X Y T")
            guard let id = UInt32(fields[1]), id <= maxTouchID, fields[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw WebMessageError("\(at): id: expected an integer 0…\(maxTouchID), got '\(fields[1])'")
            }
            let x = try number(fields[2], field: "x", at: at, in: 0...1)
            let y = try number(fields[3], field: "y", at: at, in: 0...1)
            let t = try number(fields[4], field: "t", at: at, in: 0...1e15)
            let phase: TouchPhase = fields[0] == "d" ? .down : fields[0] == "m" ? .move : .up
            return .touch(id: id, phase: phase, x: x, y: y, clientTime: t)
        case "f":
            try count(3, "f ID VALUE")
            guard let id = UInt32(fields[1]), id <= maxTouchID, fields[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw WebMessageError("\(at): id: expected an integer 0…\(maxTouchID), got '\(fields[1])'")
            }
            return .force(id: id, value: try number(fields[2], field: "value", at: at, in: 0...1))
        case "t":
            try count(2, "t VALUE")
            return .tilt(try number(fields[1], field: "tilt", at: at, in: -1...1))
        case "p":
            try count(2, "p T")
            return .ping(clientTime: try number(fields[1], field: "t", at: at, in: 0...1e15))
        case "s":
            try count(2, "s 1|0")
            guard fields[1] == "1" || fields[1] == "0" else {
                throw WebMessageError("\(at): sustain: expected 1 or 0, got '\(fields[1].prefix(24))'")
            }
            return .sustain(fields[1] == "1")
        case "x":
            try count(1, "x")
            return .panic
        default:
            throw WebMessageError("\(at): unknown type '\(fields[0].prefix(16))' (expected h, d, m, u, f, t, p, s or x)")
        }
    }

    /// A decimal number (`-?digits[.digits][e±digits]`, at most 24 characters) in `range`:
    /// no NaN, infinity, hex or blanks.
    static func number(_ s: String, field: String, at: String, in range: ClosedRange<Double>) throws(WebMessageError) -> Double {
        let expected = "\(at): \(field): expected a decimal number in \(range.lowerBound)…\(range.upperBound), got '\(s.prefix(24))'"
        guard !s.isEmpty, s.utf8.count <= 24,
              s.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2e || $0 == 0x2d || $0 == 0x2b || $0 == 0x65 || $0 == 0x45 }),
              let first = s.utf8.first, first == 0x2d || (first >= 0x30 && first <= 0x39),
              let value = Double(s), value.isFinite, range.contains(value) else {
            throw WebMessageError(expected)
        }
        return value
    }
}

/// The instrument's answers to the page: `ok N MAP NOTE` after a right token (N numbers
/// the phone; MAP is `linear`, `exp:OCTAVES` or `exp:OCTAVES:CENTRE` (a scale's root as a
/// ratio), the pad's pitch map, so the page shows the ratio under each finger; NOTE the
/// MIDI note the tone sounds at, 69 = A4, for note names), `guides …` with a scale,
/// `P T XRUNS VOICES TOUCHES` for each ping. Closing reasons go in the WebSocket close
/// frame (`WebCloseCode`).
public enum WebReply {
    /// (`timbre`: the instrument follows touches' timbres — a filter — so the page sends
    /// each finger's second dimension: `ok N MAP NOTE timbre`.)
    public static func paired(connection: Int, pitchMap: PitchMap, toneNote: Double = 69, timbre: Bool = false) -> String {
        let map: String
        switch pitchMap {
        case .linear: map = "linear"
        case let .exponential(octaves): map = "exp:\(octaves)"
        case let .exponentialAround(octaves, centre): map = "exp:\(octaves):\(centre)"
        }
        return "ok \(connection) \(map) \(number(toneNote))" + (timbre ? " timbre" : "")
    }
    /// `guides X:RATIO:DEGREE:LABEL:NAME …`, sent after `ok` when the instrument plays a
    /// scale: each step inside the pad, left to right, at pad x X (0…1), its pitch ratio to
    /// the tone's pitch, its degree in the period (0: a root), its label (a 12-TET note
    /// name, or the step's degree number) and its name with the octave ("C#4"; the degree
    /// again without note names). Labels hold no space or colon (note names and numbers);
    /// one that does is left out with its step.
    public static func guides(_ guides: [ScaleGuide]) -> String {
        let plain = { (text: String) in !text.contains(where: { $0 == " " || $0 == ":" || $0 == "\n" }) }
        let fields = guides.filter { plain($0.label) && plain($0.name) }
            .map { "\(number($0.x)):\(number($0.ratio)):\($0.degree):\($0.label):\($0.name)" }
        return (["guides"] + fields).joined(separator: " ")
    }
    /// Six significant decimals, no exponent: what the page's `Number()` reads back.
    private static func number(_ v: Double) -> String {
        let scaled = (v * 1_000_000).rounded() / 1_000_000
        return scaled == scaled.rounded() ? String(Int(scaled)) : String(scaled)
    }
    /// The answer to `p T`. TOUCHES: the phone's touches that sound, `ID:CENTS` each (the
    /// page's pointer id and the cents the pitch that sounds is from the finger's, which
    /// `--round` makes other than 0), comma-separated, or `-` for none: a finger the
    /// instrument ended (its phone went silent) is not among them, and the page shows it.
    public static func pong(clientTime: Double, xruns: Int, voices: Int, touches: [(id: UInt32, cents: Double)] = []) -> String {
        let list = touches.isEmpty ? "-" : touches.map { "\($0.id):\(number(($0.cents * 10).rounded() / 10))" }.joined(separator: ",")
        return "P \(clientTime) \(xruns) \(voices) \(list)"
    }
}

/// The close codes the instrument gives, with a reason the page shows (RFC 6455 leaves
/// 4000…4999 to applications).
public enum WebCloseCode: UInt16, Sendable {
    /// A missing or wrong token.
    case wrongToken = 4001
    /// A message the decoder refused (the reason says which line and field).
    case badMessage = 4002
    /// More events per second than a connection may send.
    case overLimit = 4003
    /// Eight phones already play.
    case full = 4004
    /// The instrument stops.
    case goingAway = 1001
}
