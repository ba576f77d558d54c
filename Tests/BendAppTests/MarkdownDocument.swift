// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// One Markdown file as far as its links are concerned: the relative links it makes and
/// the anchors its headings get, as GitHub renders them. `DocsTests` checks with it that
/// every link in README.md and docs/ reaches a file, and a heading for `#anchor` links.
struct MarkdownDocument {
    struct Link {
        /// 1-based line of the file.
        var line: Int
        /// The target as written: `PATH`, `PATH#ANCHOR` or `#ANCHOR`.
        var target: String
    }

    let url: URL
    /// Every `[text](target)` and `![alt](target)` outside code blocks and code spans,
    /// except those with a scheme (`https:`, `mailto:`): they leave the repository.
    let links: [Link]
    /// The anchor of every heading outside code blocks.
    let anchors: Set<String>

    init(url: URL) throws {
        self.url = url
        let text = try String(contentsOf: url, encoding: .utf8)
        var links: [Link] = []
        var anchors: Set<String> = []
        var seen: [String: Int] = [:]
        var fence: String?
        let linkPattern = try NSRegularExpression(pattern: #"!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)"#)
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            // Fenced code blocks (``` or ~~~): no headings, no links inside.
            if let f = fence {
                if trimmed.hasPrefix(f) { fence = nil }
                continue
            }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = String(trimmed.prefix(3))
                continue
            }
            if let heading = Self.headingText(line) {
                let base = Self.anchor(heading)
                let n = seen[base, default: 0]
                seen[base] = n + 1
                anchors.insert(n == 0 ? base : "\(base)-\(n)")
            }
            let prose = Self.withoutCodeSpans(line)
            let range = NSRange(prose.startIndex..<prose.endIndex, in: prose)
            for match in linkPattern.matches(in: prose, range: range) {
                guard let r = Range(match.range(at: 1), in: prose) else { continue }
                let target = String(prose[r])
                if target.range(of: #"^[A-Za-z][A-Za-z0-9+.-]*:"#, options: .regularExpression) != nil { continue }
                links.append(Link(line: index + 1, target: target))
            }
        }
        self.links = links
        self.anchors = anchors
    }

    /// The text of an ATX heading (`## Text`, up to six `#`, closing `#`s dropped), or nil.
    static func headingText(_ line: String) -> String? {
        guard let m = line.range(of: #"^ {0,3}#{1,6}(\s+|$)"#, options: .regularExpression) else { return nil }
        var text = String(line[m.upperBound...]).trimmingCharacters(in: .whitespaces)
        if let closing = text.range(of: #"\s+#+$"#, options: .regularExpression) { text.removeSubrange(closing) }
        return text
    }

    /// GitHub's anchor of a heading: its text (links as their text, code as its
    /// characters) lowercased, every space a `-`, and every character that is not a
    /// letter, a digit, `-` or `_` dropped. A heading whose anchor came before gets `-1`,
    /// `-2`, … (`init`).
    static func anchor(_ heading: String) -> String {
        let text = heading.replacingOccurrences(of: #"\[([^\]]*)\]\([^)]*\)"#, with: "$1", options: .regularExpression)
        var out = ""
        for scalar in text.lowercased().unicodeScalars {
            if scalar == " " {
                out += "-"
            } else if scalar == "-" || scalar == "_" || scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The line with every code span (`` `…` ``) taken out: a link written as code is not a link.
    static func withoutCodeSpans(_ line: String) -> String {
        line.replacingOccurrences(of: "``.*?``", with: "", options: .regularExpression)
            .replacingOccurrences(of: "`[^`]*`", with: "", options: .regularExpression)
    }
}
