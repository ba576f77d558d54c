// SPDX-License-Identifier: GPL-3.0-or-later

/// "Did you mean": the known word nearest a mistyped one (an option, a command), by edit
/// distance — insertions, deletions, substitutions and swaps of two neighbours, each 1
/// (optimal string alignment) — when it is near enough to be a typo: at most 2 edits, and
/// fewer than half the word's letters.
public enum Suggestion {
    /// The nearest of `known` to `word` (the first of equals), nil when none is near.
    public static func closest(to word: String, in known: [String]) -> String? {
        let limit = min(2, (word.count - 1) / 2)
        var best: (word: String, distance: Int)?
        for k in known where k != word {
            let d = distance(word, k)
            if d <= limit && d < (best?.distance ?? .max) { best = (k, d) }
        }
        return best?.word
    }

    /// `"; did you mean 'X'?"` for the nearest of `known`, or "" when none is near.
    public static func didYouMean(_ word: String, in known: [String]) -> String {
        closest(to: word, in: known).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Optimal string alignment distance between `a` and `b`, in characters.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
