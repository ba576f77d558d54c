// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

extension MIDIInterpreter {
    /// An effect send (GM: CC 91 the reverb's, CC 93 the chorus's, `reverb` false): the
    /// channel's held notes take it now, and the notes it starts from now on (per note in
    /// MPE, each note on its own channel).
    @inline(__always)
    mutating func effectSend(_ ch: Int, reverb: Bool, _ value: Int, _ emit: (ControlEvent) -> Void) {
        let level = Double(value) / 127
        if reverb { channels[ch].reverbSend = level } else { channels[ch].chorusSend = level }
        var i = 0
        while i < heldCount {
            if held[i].channel == ch { emit(.send(id: held[i].id, bus: reverb ? .reverb : .chorus, level: level)) }
            i += 1
        }
    }
}
