import BendEvdev

extension FuzzTarget {
    /// An evemu recording (text) parsed, then decoded as a live device would be, the
    /// device removed at the end: every touch the decoder starts ends. Seeds:
    /// realworld/evdev (a `.desc` + `.events` pair joined into one file), the test fixtures.
    static let evemu = FuzzTarget(name: "evemu", maxLength: 65536) { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        guard let recording = try? EvemuRecording.parse(text) else { return }
        var ledger = TouchLedger("evemu")
        for frame in EvdevReplay.frames(device: recording.device, events: recording.events, releaseAtEnd: true) {
            ledger.apply(frame.events)
        }
        ledger.checkAllEnded("the device was removed")
    }
}
