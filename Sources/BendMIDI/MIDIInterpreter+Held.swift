// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// The held notes and pitches of `MIDIInterpreter`: no closures here, so these are
/// `@_noLocks` on their own (the message code that calls them is in MIDIInterpreter.swift,
/// which its real-time entry points check as a whole).
extension MIDIInterpreter {
    /// True while any channel's sustain pedal is down.
    public var sustained: Bool {
        @_noLocks get {
            var c = 0
            while c < 16 { if channels[c].sustain { return true }; c += 1 }
            return false
        }
    }

    /// The pitch ratio of `note` on `channel` with `keyCents` of scale/octave tuning:
    /// the key, the bend (and the zone master's), the channel's and the master tuning.
    /// `mutating` though it changes nothing: non-mutating, each call copied the whole
    /// interpreter (118 KB) to pass it.
    @_noLocks
    mutating func ratio(channel: Int, note: Int, keyCents: Double) -> Double {
        guard let key = keys.ratio(ofKey: note) else { return 0 }
        var semitones = channels[channel].bendSemitones + channels[channel].tuningSemitones + masterSemitones + keyCents / 100
        if zones.isMember(channel), let master = zones.master(of: channel) {
            semitones += channels[master].bendSemitones
        }
        // pow (libm): no lock, no allocation.
        let exponent = semitones / 12
        return key * _unsafePerformance { pow(2, exponent) }
    }

    /// The index of the held note (`ch`, `note`), or −1. `mutating` though it changes
    /// nothing: non-mutating, each `held[i]` read copied the whole InlineArray (112 KB).
    @_noLocks
    mutating func heldIndex(_ ch: Int, _ note: Int) -> Int {
        var i = 0
        while i < heldCount { if held[i].channel == ch && held[i].note == note { return i }; i += 1 }
        return -1
    }

    /// A fresh touch id: the counter's next, skipping ids still held once it wrapped.
    @_noLocks
    mutating func newID() -> UInt32 {
        while true {
            let id = nextID
            if nextID == .max { nextID = firstID; wrapped = true } else { nextID += 1 }
            guard wrapped else { return id }
            var taken = false
            var i = 0
            while i < heldCount { if held[i].id == id { taken = true }; i += 1 }
            if !taken { return id }
        }
    }

    /// Removes held note `i`, keeping the others in order.
    @_noLocks
    mutating func remove(_ i: Int) {
        var j = i
        while j + 1 < heldCount { held[j] = held[j + 1]; j += 1 }
        heldCount -= 1
    }
}
