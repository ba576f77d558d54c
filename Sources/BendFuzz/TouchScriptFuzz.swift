// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

extension FuzzTarget {
    /// A touch script (JSON Lines) parsed: what it accepts is consistent (times never go
    /// back, the end is not before the last event, no touch starts twice or moves while
    /// up) and writes back as a script that
    /// parses to the same events. Seeds: Assets/demo.jsonl, recorded takes.
    /// Inputs up to 4 KiB (about 60 lines; each line goes through Foundation's JSONDecoder).
    static let touchScript = FuzzTarget(name: "touch-script", maxLength: 4096) { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        guard let script = try? TouchScript.parse(text) else { return }
        var ledger = TouchLedger("touch-script")
        var last = 0.0
        for entry in script.entries {
            if !(entry.time >= last) { violated("touch-script", "time \(entry.time) after \(last)") }
            last = entry.time
            ledger.apply(entry.event)
        }
        if let end = script.end, !(end >= last) { violated("touch-script", "end \(end) before the last event at \(last)") }
        let written = script.entries.map { TouchScript.line(time: $0.time, event: $0.event) }.joined(separator: "\n")
        guard let again = try? TouchScript.parse(written) else {
            violated("touch-script", "the script written back does not parse:\n\(written.prefix(400))")
        }
        if again.entries.map(\.event.touchPhase?.id) != script.entries.map(\.event.touchPhase?.id) {
            violated("touch-script", "the script written back holds other touches")
        }
    }
}
