// SPDX-License-Identifier: GPL-3.0-or-later
import BendEvdev

extension FuzzTarget {
    /// An evemu recording (text) parsed, then decoded as a live device would be, the
    /// device removed at the end: every touch the decoder starts ends. Seeds:
    /// realworld/evdev (a `.desc` + `.events` pair joined into one file), the test fixtures.
    /// Inputs up to 4 KiB: a real device's description (about 3 KB with its comments) and its first events (at
    /// 64 KiB whole recordings ran at 270 exec/s; at 4 KiB about ten times that).
    static let evemu = FuzzTarget(name: "evemu", maxLength: 4096) { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        guard let recording = try? EvemuRecording.parse(text) else { return }
        var ledger = TouchLedger("evemu")
        for frame in EvdevReplay.frames(device: recording.device, events: recording.events, releaseAtEnd: true) {
            ledger.apply(frame.events)
        }
        ledger.checkAllEnded("the device was removed")
    }
}
