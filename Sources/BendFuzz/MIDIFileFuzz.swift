// SPDX-License-Identifier: GPL-3.0-or-later
import BendMIDI

extension FuzzTarget {
    /// Standard MIDI Files: parsed, then turned into a touch script through the MIDI
    /// interpreter: every note it starts ends by the file's end. Seeds: the MIDI test
    /// fixtures (mido), realworld/midi.
    static let midiFile = FuzzTarget(name: "midi-file", maxLength: 65536) { bytes in
        guard let file = try? StandardMIDIFile.parse(Array(bytes)),
              let script = try? MIDIFileScript.script(file) else { return }
        var ledger = TouchLedger("midi-file")
        var last = 0.0
        for entry in script.entries {
            if !(entry.time >= last) { violated("midi-file", "time \(entry.time) after \(last)") }
            last = entry.time
            ledger.apply(entry.event)
        }
        ledger.checkAllEnded("the file's end")
    }
}
