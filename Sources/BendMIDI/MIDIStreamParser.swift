// SPDX-License-Identifier: GPL-3.0-or-later
/// Frames a raw MIDI byte stream into complete messages: running status, system
/// real-time bytes anywhere (even inside another message, a SysEx too), system common
/// messages skipped. A SysEx (F0 … F7) of up to `sysExCapacity` bytes is handed on whole
/// (the tuning messages `MIDIInterpreter` reads are at most 33); a longer one (a sample
/// dump) is skipped. Bytes that make no message — a data byte with no status, a message
/// cut short by a new status, an undefined status (0xF4, 0xF5, 0xF9, 0xFD), a stray
/// SysEx end — are dropped and counted in `strayBytes`; the parser never stalls: the
/// next status byte always starts afresh.
///
/// Pure and allocation-free: a value type of a few dozen bytes (the SysEx is kept in
/// place, not in an array); fuzzed in the tests.
/// - Thread: one (the owner's).
public struct MIDIStreamParser: Sendable {
    /// Bytes that belonged to no complete message, since the start.
    public private(set) var strayBytes = 0
    /// Complete SysEx and system common messages skipped (not used, or a SysEx longer
    /// than `sysExCapacity`), since the start.
    public private(set) var skippedMessages = 0

    /// Longest SysEx handed on, bytes from F0 to F7.
    public static let sysExCapacity = 64
    /// The SysEx in progress: its first `sysExCount` bytes (from F0). More than
    /// `sysExCapacity` counted: too long, skipped at its end.
    private var sysEx = InlineArray<64, UInt8>(repeating: 0)
    private var sysExCount = 0

    /// The running status (a channel message's status byte), 0 when none.
    private var running: UInt8 = 0
    /// Data bytes of the message in progress.
    private var data: (UInt8, UInt8) = (0, 0)
    private var have = 0
    /// Data bytes a system common message in progress still skips.
    private var skipping = 0
    private var inSysEx = false

    public init() {}

    /// Parses `bytes`, calling `emit` with each complete message in order (SysEx skipped).
    /// A message may span calls (an ALSA raw stream); a JACK event holds whole messages.
    public mutating func parse<C: Collection>(_ bytes: C, emit: (MIDIMessage) -> Void) where C.Element == UInt8 {
        for b in bytes { step(b, emit, false) { _ in } }
    }

    /// Parses `bytes`, calling `emit` with each complete message and `sysEx` with each
    /// whole SysEx (its bytes from F0 to F7, valid during the call), in stream order.
    public mutating func parse<C: Collection>(_ bytes: C, emit: (MIDIMessage) -> Void,
                                              sysEx: (UnsafeBufferPointer<UInt8>) -> Void) where C.Element == UInt8 {
        for b in bytes { step(b, emit, true, sysEx) }
    }

    /// Parses one byte (SysEx skipped).
    public mutating func parse(byte b: UInt8, emit: (MIDIMessage) -> Void) { step(b, emit, false) { _ in } }

    /// Parses one byte; a SysEx end hands the whole SysEx to `sysEx`.
    public mutating func parse(byte b: UInt8, emit: (MIDIMessage) -> Void, sysEx: (UnsafeBufferPointer<UInt8>) -> Void) {
        step(b, emit, true, sysEx)
    }

    /// One byte; `keep` false: a whole SysEx is skipped (counted), not handed on.
    private mutating func step(_ b: UInt8, _ emit: (MIDIMessage) -> Void, _ keep: Bool,
                               _ handOn: (UnsafeBufferPointer<UInt8>) -> Void) {
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
                if b == 0xF7 {
                    if keep && sysExCount < Self.sysExCapacity {
                        sysEx[sysExCount] = 0xF7
                        let n = sysExCount + 1
                        sysEx.span.withUnsafeBufferPointer { handOn(UnsafeBufferPointer(rebasing: $0[..<n])) }
                    } else {
                        skippedMessages += 1  // not asked for, or too long to keep
                    }
                    return
                }
                strayBytes += 1  // a SysEx cut by another status
            }
            switch b {
            case 0xF0:
                inSysEx = true
                running = 0
                sysEx[0] = 0xF0
                sysExCount = 1
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
        if inSysEx {
            if sysExCount < Self.sysExCapacity - 1 { sysEx[sysExCount] = b }  // room kept for the F7
            sysExCount = min(sysExCount + 1, Self.sysExCapacity)
            return
        }
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
