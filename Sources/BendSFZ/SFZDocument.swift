// SPDX-License-Identifier: GPL-3.0-or-later
/// The headers and opcodes of an SFZ file and of the files it includes, in the order they
/// are written, `#define` variables expanded: what the SFZ format's text says, before any
/// meaning is given to it (`SFZInstrument`). Read as sfizz reads it (its `Parser`):
///
///     // a line comment        /* a block comment, over lines */
///     #define $KEY 60           ← a variable: its value is the first word after the name
///     #include "strings.sfz"    ← another file's text, here (relative to the instrument's
///                                  folder; a backslash is a slash)
///     <group> lovel=1 hivel=64  ← a header, then opcodes name=value
///     <region> sample=Piano C4.wav key=$KEY
///
/// An opcode's value runs to the end of the line, a comment, or the next `name=`, `<`,
/// `#define` or `#include` after a blank (so a sample's name may hold spaces); names and
/// headers are letters, digits and `_`, case as written (sfizz's opcodes are lowercase).
/// A pure function of the bytes it is given (`parse`): fuzzed.
public struct SFZDocument: Sendable, Equatable {
    public enum Item: Sendable, Equatable {
        /// `<name>`.
        case header(String, SFZLocation)
        /// `name=value`.
        case opcode(String, String, SFZLocation)
    }

    /// The items, the included files' in place of their `#include` lines.
    public var items: [Item]

    /// Includes nested deeper than this are an error (a file that includes itself through
    /// others is one already: `include loop`).
    public static let maximumIncludeDepth = 32

    /// Reads the instrument at `path` and the files it includes.
    /// - Parameters:
    ///   - directory: the folder includes are relative to (the instrument's).
    ///   - readFile: the bytes of a file, by its path as resolved; or throws a reason (a
    ///     sentence: "No such file or directory") when it cannot be read.
    /// - Throws: `SFZError` naming the file and line: an unterminated header or comment,
    ///   an opcode without `=` or without a value, a `#define` or `#include` that does not
    ///   parse, an include that cannot be read or that includes itself, an undefined
    ///   variable.
    public static func read(path: String, directory: String, readFile: (String) throws -> [UInt8]) throws -> SFZDocument {
        let bytes: [UInt8]
        do { bytes = try readFile(path) } catch { throw SFZError(file: path, line: 1, "cannot read the instrument: \(error)") }
        return try parse(bytes, path: path, directory: directory, readFile: readFile)
    }

    /// The document of `bytes`, the text of the instrument at `path` (see `read`).
    public static func parse(_ bytes: [UInt8], path: String, directory: String,
                             readFile: (String) throws -> [UInt8]) throws -> SFZDocument {
        try withoutActuallyEscaping(readFile) { read in
            var scanner = SFZScanner(directory: directory, readFile: read)
            try scanner.scan(bytes, file: path, stack: [path])
            return SFZDocument(items: scanner.items)
        }
    }
}

/// The scanner behind `SFZDocument`: one pass over each file's bytes.
struct SFZScanner {
    let directory: String
    let readFile: (String) throws -> [UInt8]
    var items: [SFZDocument.Item] = []
    var definitions: [String: String] = [:]
    /// The longest text variables may expand to (a path or a value: far below).
    static let maximumExpansion = 65_536

    init(directory: String, readFile: @escaping (String) throws -> [UInt8]) {
        self.directory = directory
        self.readFile = readFile
    }

    static func isName(_ c: UInt8) -> Bool {
        c == UInt8(ascii: "_") || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
            || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
    }

    static func isBlank(_ c: UInt8) -> Bool { c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") }

    /// At most 40 characters of `bytes`, control characters as '?', for a message.
    static func shown(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(40).map { $0 < 32 || $0 == 127 ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
        return bytes.count > 40 ? text + "…" : text
    }

    mutating func scan(_ b: [UInt8], file: String, stack: [String]) throws {
        let n = b.count
        // A UTF-8 byte order mark (Windows editors write one) is not text.
        var i = n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF ? 3 : 0
        var line = 1
        func fail(_ message: String, at l: Int? = nil) -> SFZError { SFZError(file: file, line: l ?? line, message) }
        func endOfLine(from j: Int) -> Int {
            var k = j
            while k < n && b[k] != UInt8(ascii: "\n") && b[k] != UInt8(ascii: "\r") { k += 1 }
            return k
        }
        while i < n {
            let c = b[i]
            if c == UInt8(ascii: "\n") { line += 1; i += 1; continue }
            if SFZScanner.isBlank(c) || c == UInt8(ascii: "\r") { i += 1; continue }
            if c == UInt8(ascii: "/") && i + 1 < n && b[i + 1] == UInt8(ascii: "/") {
                i = endOfLine(from: i)
                continue
            }
            if c == UInt8(ascii: "/") && i + 1 < n && b[i + 1] == UInt8(ascii: "*") {
                let start = line
                i += 2
                while i < n && !(b[i] == UInt8(ascii: "*") && i + 1 < n && b[i + 1] == UInt8(ascii: "/")) {
                    if b[i] == UInt8(ascii: "\n") { line += 1 }
                    i += 1
                }
                guard i < n else { throw fail("unterminated comment '/*'; expected '*/' before the end of the file", at: start) }
                i += 2
                continue
            }
            if c == UInt8(ascii: "#") {
                i = try directive(b, at: i, line: line, file: file, stack: stack)
                continue
            }
            if c == UInt8(ascii: "<") {
                var j = i + 1
                while j < n && b[j] != UInt8(ascii: ">") && b[j] != UInt8(ascii: "\n") && b[j] != UInt8(ascii: "\r") { j += 1 }
                guard j < n && b[j] == UInt8(ascii: ">") else {
                    throw fail("unterminated header '\(SFZScanner.shown(b[i..<j]))'; expected '>' on the same line")
                }
                let name = b[(i + 1)..<j]
                guard !name.isEmpty, name.allSatisfy(SFZScanner.isName) else {
                    throw fail("header '<\(SFZScanner.shown(name))>' is not a name; expected <region>, <group>, <master>, <global> or <control>")
                }
                items.append(.header(String(decoding: name, as: UTF8.self), SFZLocation(file: file, line: line)))
                i = j + 1
                continue
            }
            i = try opcode(b, at: i, line: line, file: file)
        }
    }

    /// An opcode `name=value` at `i`; returns where its value ended.
    mutating func opcode(_ b: [UInt8], at i: Int, line: Int, file: String) throws -> Int {
        let n = b.count
        var j = i
        while j < n && (SFZScanner.isName(b[j]) || b[j] == UInt8(ascii: "$")) { j += 1 }
        let here = SFZLocation(file: file, line: line)
        guard j > i else {
            throw SFZError(file: file, line: line, "unexpected '\(SFZScanner.shown(b[i..<min(i + 1, n)]))'; expected an opcode (name=value), a <header>, a #define or #include, or a comment")
        }
        let rawName = String(decoding: b[i..<j], as: UTF8.self)
        guard j < n && b[j] == UInt8(ascii: "=") else {
            throw SFZError(file: file, line: line, "opcode '\(rawName)' has no '='; expected \(rawName)=value")
        }
        let name = try expand(rawName, at: here)
        guard !name.isEmpty, name.utf8.allSatisfy(SFZScanner.isName) else {
            throw SFZError(file: file, line: line, "opcode name '\(name)' is not a name; expected letters, digits and '_'")
        }
        // Embedded sample data (`<sample>`'s `base64data`, `data`): the rest of the line as
        // it is — base64 holds "//", raw data "$" — never a comment or a variable.
        if Self.dataOpcodes.contains(name) {
            var e = j + 1
            while e < n && b[e] != UInt8(ascii: "\n") && b[e] != UInt8(ascii: "\r") { e += 1 }
            items.append(.opcode(name, String(decoding: b[(j + 1)..<e], as: UTF8.self), here))
            return e
        }
        // The value: to the end of the line or a comment, cut before a blank that is
        // followed by another opcode, a header or a directive.
        let start = j + 1
        var end = start
        var k = start
        while k < n {
            let c = b[k]
            if c == UInt8(ascii: "\n") || c == UInt8(ascii: "\r") { break }
            if c == UInt8(ascii: "/") && k + 1 < n && (b[k + 1] == UInt8(ascii: "/") || b[k + 1] == UInt8(ascii: "*")) { break }
            if c == UInt8(ascii: "<") { break }
            if SFZScanner.isBlank(c) {
                var m = k
                while m < n && SFZScanner.isBlank(b[m]) { m += 1 }
                if m >= n || b[m] == UInt8(ascii: "\n") || b[m] == UInt8(ascii: "\r") || b[m] == UInt8(ascii: "<") { break }
                if b[m] == UInt8(ascii: "/") && m + 1 < n && (b[m + 1] == UInt8(ascii: "/") || b[m + 1] == UInt8(ascii: "*")) { break }
                if b[m] == UInt8(ascii: "#") && (startsWith(b, m + 1, "define") || startsWith(b, m + 1, "include")) { break }
                var q = m
                while q < n && (SFZScanner.isName(b[q]) || b[q] == UInt8(ascii: "$")) { q += 1 }
                if q > m && q < n && b[q] == UInt8(ascii: "=") { break }
                k = m
                end = m
                continue
            }
            k += 1
            end = k
        }
        let raw = String(decoding: b[start..<end], as: UTF8.self)
        guard !raw.isEmpty else {
            throw SFZError(file: file, line: line, "opcode '\(name)' has no value; expected \(name)=value")
        }
        // A bare name after a blank at the value's end is an opcode without '=' (`key=60 key`),
        // not part of the value — except in a text value (a sample's file name may hold blanks).
        if !Self.textOpcodes.contains(name), !name.hasPrefix("label_cc"), let last = raw.split(whereSeparator: { SFZScanner.isBlank($0.asciiValue ?? 0) }).dropFirst().last,
           last.utf8.allSatisfy(SFZScanner.isName) {
            throw SFZError(file: file, line: line, "opcode '\(last)' has no '='; expected \(last)=value")
        }
        items.append(.opcode(name, try expand(raw, at: here), here))
        return end
    }

    /// Opcodes whose value is embedded data, read raw to the end of the line.
    static let dataOpcodes: Set<String> = ["base64data", "data"]

    /// Opcodes whose value is text that may hold blanks (file names, labels).
    static let textOpcodes: Set<String> = ["sample", "default_path", "label", "region_label", "group_label", "master_label", "global_label",
                                           "image", "ui_label", "label_cc", "sw_label"]

    func startsWith(_ b: [UInt8], _ i: Int, _ word: String) -> Bool {
        let w = Array(word.utf8)
        return i + w.count <= b.count && Array(b[i..<(i + w.count)]) == w && (i + w.count == b.count || !SFZScanner.isName(b[i + w.count]))
    }

    /// A `#define` or `#include` at `i`; returns where it ended.
    mutating func directive(_ b: [UInt8], at i: Int, line: Int, file: String, stack: [String]) throws -> Int {
        let n = b.count
        var j = i + 1
        while j < n && SFZScanner.isName(b[j]) { j += 1 }
        let word = String(decoding: b[(i + 1)..<j], as: UTF8.self)
        func skipBlanks(_ k: inout Int) { while k < n && SFZScanner.isBlank(b[k]) { k += 1 } }
        let here = SFZLocation(file: file, line: line)
        switch word {
        case "define":
            var k = j
            skipBlanks(&k)
            guard k < n && b[k] == UInt8(ascii: "$") else {
                throw SFZError(file: file, line: line, "#define needs a variable; expected #define $NAME value")
            }
            var e = k + 1
            while e < n && SFZScanner.isName(b[e]) { e += 1 }
            guard e > k + 1 else { throw SFZError(file: file, line: line, "#define needs a variable name after '$'; expected #define $NAME value") }
            let name = String(decoding: b[(k + 1)..<e], as: UTF8.self)
            var v = e
            skipBlanks(&v)
            var w = v
            while w < n && !SFZScanner.isBlank(b[w]) && b[w] != UInt8(ascii: "\n") && b[w] != UInt8(ascii: "\r") { w += 1 }
            guard w > v else { throw SFZError(file: file, line: line, "#define $\(name) has no value; expected #define $\(name) value") }
            definitions[name] = String(decoding: b[v..<w], as: UTF8.self)
            return w
        case "include":
            var k = j
            skipBlanks(&k)
            var e = k + 1
            while e < n && b[e] != UInt8(ascii: "\"") && b[e] != UInt8(ascii: "\n") && b[e] != UInt8(ascii: "\r") { e += 1 }
            guard k < n && b[k] == UInt8(ascii: "\""), e < n && b[e] == UInt8(ascii: "\""), e > k + 1 else {
                throw SFZError(file: file, line: line, "#include needs a file in quotes; expected #include \"file.sfz\"")
            }
            let named = try expand(String(decoding: b[(k + 1)..<e], as: UTF8.self), at: here)
            let relative = String(named.map { $0 == "\\" ? "/" : $0 })
            let resolved = relative.hasPrefix("/") ? relative : (directory.isEmpty ? relative : directory + "/" + relative)
            if let first = stack.firstIndex(of: resolved) {
                let loop = (stack[first...] + [resolved]).joined(separator: " → ")
                throw SFZError(file: file, line: line, "#include \"\(named)\" is an include loop (\(loop)); a file may not include itself")
            }
            guard stack.count < SFZDocument.maximumIncludeDepth else {
                throw SFZError(file: file, line: line, "#include \"\(named)\": includes nested more than \(SFZDocument.maximumIncludeDepth) deep")
            }
            let bytes: [UInt8]
            do { bytes = try readFile(resolved) } catch {
                throw SFZError(file: file, line: line, "#include \"\(named)\": cannot read '\(resolved)': \(error)")
            }
            try scan(bytes, file: resolved, stack: stack + [resolved])
            return e + 1
        default:
            throw SFZError(file: file, line: line, "unknown directive '#\(word)'; expected #define or #include")
        }
    }

    /// `text` with its `$NAME` variables replaced by their `#define`d values (as sfizz:
    /// the shortest defined name after the `$`; values may hold variables themselves).
    func expand(_ text: String, at location: SFZLocation) throws -> String {
        guard text.contains("$") else { return text }
        var current = Array(text.utf8)
        for _ in 0..<16 {
            guard current.contains(UInt8(ascii: "$")) else { return String(decoding: current, as: UTF8.self) }
            var out: [UInt8] = []
            var i = 0
            while i < current.count {
                guard current[i] == UInt8(ascii: "$") else { out.append(current[i]); i += 1; continue }
                var j = i + 1
                var value: String?
                while j < current.count && SFZScanner.isName(current[j]) && value == nil {
                    j += 1
                    value = definitions[String(decoding: current[(i + 1)..<j], as: UTF8.self)]
                }
                guard let value else {
                    let name = String(decoding: current[(i + 1)..<j], as: UTF8.self)
                    throw SFZError(file: location.file, line: location.line,
                                   name.isEmpty ? "a '$' with no variable name after it" : "variable $\(name) is not defined; expected #define $\(name) value before it")
                }
                out += Array(value.utf8)
                i = j
                // (Variables of variables can double the text at every round: found by make fuzz.)
                guard out.count <= SFZScanner.maximumExpansion else {
                    throw SFZError(file: location.file, line: location.line,
                                   "variables in '\(text.prefix(40))' expand to more than \(SFZScanner.maximumExpansion) characters")
                }
            }
            current = out
        }
        throw SFZError(file: location.file, line: location.line, "variables in '\(text)' expand without end (a #define that names itself)")
    }
}
