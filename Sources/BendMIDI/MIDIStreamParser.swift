/// Frames a raw MIDI byte stream into complete messages: running status, system
/// real-time bytes anywhere (even inside another message), SysEx and system common
/// messages skipped. Bytes that make no message — a data byte with no status, a message
/// cut short by a new status, an undefined status (0xF4, 0xF5, 0xF9, 0xFD), a stray
/// SysEx end — are dropped and counted in `strayBytes`; the parser never stalls: the
/// next status byte always starts afresh.
///
/// Pure and allocation-free: a value type of a few bytes; fuzzed in the tests.
/// - Thread: one (the owner's).
public struct MIDIStreamParser: Sendable {
    /// Bytes that belonged to no complete message, since the start.
    public private(set) var strayBytes = 0
    /// Complete SysEx and system common messages skipped (not used), since the start.
    public private(set) var skippedMessages = 0

    /// The running status (a channel message's status byte), 0 when none.
    private var running: UInt8 = 0
    /// Data bytes of the message in progress.
    private var data: (UInt8, UInt8) = (0, 0)
    private var have = 0
    /// Data bytes a system common message in progress still skips.
    private var skipping = 0
    private var inSysEx = false

    public init() {}

    /// Parses `bytes`, calling `emit` with each complete message in order. A message may
    /// span calls (an ALSA raw stream); a JACK event holds whole messages.
    public mutating func parse<C: Collection>(_ bytes: C, emit: (MIDIMessage) -> Void) where C.Element == UInt8 {
        for b in bytes { parse(byte: b, emit: emit) }
    }

    /// Parses one byte.
    public mutating func parse(byte b: UInt8, emit: (MIDIMessage) -> Void) {
        if b >= 0xF8 {  // real-time: never disturbs what is in progress
            if b == 0xF9 || b == 0xFD { strayBytes += 1 } else { emit(MIDIMessage(status: b)) }
            return
        }
        if b >= 0x80 {
            // A new status ends any message in progress; one cut short is counted.
            if have > 0 { strayBytes += have }
            if skipping > 0 { strayBytes += 1 }
            have = 0
            skipping = 0
            if inSysEx {
                inSysEx = false
                if b == 0xF7 { skippedMessages += 1; return }
                strayBytes += 1  // a SysEx cut by another status
            }
            switch b {
            case 0xF0: inSysEx = true; running = 0
            case 0xF7: strayBytes += 1
            case 0xF1, 0xF3: skipping = 1; running = 0
            case 0xF2: skipping = 2; running = 0
            case 0xF6: skippedMessages += 1; running = 0
            case 0xF4, 0xF5: strayBytes += 1; running = 0
            default: running = b
            }
            return
        }
        // A data byte.
        if inSysEx { return }
        if skipping > 0 {
            skipping -= 1
            if skipping == 0 { skippedMessages += 1 }
            return
        }
        guard running != 0 else { strayBytes += 1; return }
        let need = MIDIMessage.length(status: running) - 1
        if have == 0 { data.0 = b } else { data.1 = b }
        have += 1
        if have == need {
            have = 0
            emit(MIDIMessage(status: running, data1: data.0, data2: need == 2 ? data.1 : 0))
        }
    }
}
