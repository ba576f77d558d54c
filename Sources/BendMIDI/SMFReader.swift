// SPDX-License-Identifier: GPL-3.0-or-later
/// The byte-level reader of `StandardMIDIFile.parse`: every read checks its bounds and
/// throws `SMFError` with the offset and what was expected.
struct SMFReader {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Largest track count accepted (a 16-bit field; real files have a few dozen).
    static let maximumTracks = 65535

    func read() throws(SMFError) -> StandardMIDIFile {
        guard bytes.count >= 4, Array(bytes[0..<4]) == Array("MThd".utf8) else {
            throw SMFError(offset: 0, expected: "expected the header chunk \"MThd\" (not a Standard MIDI File)")
        }
        let headerLength = try be32(at: 4, what: "the header chunk's length")
        guard headerLength >= 6 else {
            throw SMFError(offset: 4, expected: "expected a header length of at least 6, found \(headerLength)")
        }
        guard 8 + headerLength <= bytes.count else {
            throw SMFError(offset: 4, expected: "truncated header chunk: length \(headerLength) reaches past the end of the file (\(bytes.count) bytes)")
        }
        let format = try be16(at: 8, what: "the format")
        guard format == 0 || format == 1 else {
            throw SMFError(offset: 8, expected: "expected format 0 or 1, found \(format)")
        }
        let trackCount = try be16(at: 10, what: "the track count")
        guard trackCount >= 1, format == 1 || trackCount == 1 else {
            throw SMFError(offset: 10, expected: "expected \(format == 0 ? "1 track (format 0)" : "at least 1 track"), found \(trackCount)")
        }
        let d = try be16(at: 12, what: "the division")
        let division: StandardMIDIFile.Division
        if d & 0x8000 != 0 {
            let fps = Int(Int8(truncatingIfNeeded: d >> 8))
            let tpf = d & 0xFF
            guard [-24, -25, -29, -30].contains(fps), tpf > 0 else {
                throw SMFError(offset: 12, expected: "expected SMPTE frames of -24, -25, -29 or -30 and ticks per frame > 0, found \(fps), \(tpf)")
            }
            division = .smpte(framesPerSecond: fps == -29 ? 29.97 : Double(-fps), ticksPerFrame: tpf)
        } else {
            guard d > 0 else { throw SMFError(offset: 12, expected: "expected ticks per quarter note > 0, found 0") }
            division = .ticksPerQuarter(d)
        }
        var tracks: [[StandardMIDIFile.Event]] = []
        var ends: [UInt64] = []
        var at = 8 + headerLength
        while tracks.count < trackCount {
            guard at + 8 <= bytes.count else {
                throw SMFError(offset: at, expected: "expected track chunk \(tracks.count + 1) of \(trackCount) (\"MTrk\" and a length), found the end of the file")
            }
            let length = try be32(at: at + 4, what: "a chunk length")
            let start = at + 8
            guard length <= bytes.count - start else {
                throw SMFError(offset: at + 4, expected: "truncated chunk: length \(length) reaches past the end of the file (\(bytes.count - start) bytes left)")
            }
            if Array(bytes[at..<at + 4]) == Array("MTrk".utf8) {
                let (events, end) = try track(start, start + length)
                tracks.append(events)
                ends.append(end)
            } else if !bytes[at..<at + 4].allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
                throw SMFError(offset: at, expected: "expected a chunk type (\"MTrk\"), found bytes \(bytes[at..<at + 4].map { String($0, radix: 16) })")
            }
            at = start + length
        }
        return StandardMIDIFile(format: format, division: division, tracks: tracks, endTicks: ends)
    }

    /// One `MTrk` chunk's events, bytes start..<end, and the tick it ends at.
    private func track(_ start: Int, _ end: Int) throws(SMFError) -> ([StandardMIDIFile.Event], UInt64) {
        var events: [StandardMIDIFile.Event] = []
        var at = start
        var tick: UInt64 = 0
        var running: UInt8 = 0
        /// A SysEx begun by an F0 event whose bytes did not end in F7 (continued by F7 packets).
        var pendingSysEx: [UInt8]?
        func byte(_ what: String) throws(SMFError) -> UInt8 {
            guard at < end else { throw SMFError(offset: at, expected: "expected \(what), found the end of the track chunk") }
            defer { at += 1 }
            return bytes[at]
        }
        func vlq(_ what: String) throws(SMFError) -> Int {
            let first = at
            var v = 0
            for _ in 0..<4 {
                let b = try byte(what)
                v = v << 7 | Int(b & 0x7F)
                if b & 0x80 == 0 { return v }
            }
            throw SMFError(offset: first, expected: "expected \(what) (a variable-length number of at most 4 bytes), found 4 bytes with the continuation bit")
        }
        while at < end {
            tick += UInt64(try vlq("a delta time"))
            let statusAt = at
            var status = try byte("an event")
            switch status {
            case 0xFF:
                let type = try byte("a meta event type")
                let lengthAt = at
                let length = try vlq("a meta event length")
                guard length <= end - at else {
                    throw SMFError(offset: lengthAt, expected: "meta event length \(length) reaches past the end of the track chunk (\(end - at) bytes left)")
                }
                if type == 0x51 {
                    guard length == 3 else { throw SMFError(offset: lengthAt, expected: "expected a tempo of length 3, found \(length)") }
                    let us = Int(bytes[at]) << 16 | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2])
                    guard us > 0 else { throw SMFError(offset: at, expected: "expected a tempo > 0 microseconds per quarter note, found 0") }
                    events.append(.init(tick: tick, kind: .tempo(microsecondsPerQuarter: us)))
                }
                at += length
                if type == 0x2F { return (events, tick) }  // end of track: anything after it is ignored
            case 0xF0, 0xF7:
                let lengthAt = at
                let length = try vlq("a SysEx length")
                guard length <= end - at else {
                    throw SMFError(offset: lengthAt, expected: "SysEx length \(length) reaches past the end of the track chunk (\(end - at) bytes left)")
                }
                let body = bytes[at..<at + length]
                at += length
                var whole: [UInt8]?
                if status == 0xF0 {
                    let message = [0xF0] + body
                    if body.last == 0xF7 { whole = message } else { pendingSysEx = message }
                } else if var begun = pendingSysEx {
                    begun += body
                    if body.last == 0xF7 { whole = begun; pendingSysEx = nil } else { pendingSysEx = begun }
                } else if body.first == 0xF0 && body.last == 0xF7 {
                    whole = Array(body)  // an escape holding a whole SysEx
                }
                if let whole { events.append(.init(tick: tick, kind: .sysEx(whole))) }
            default:
                if status < 0x80 {
                    guard running != 0 else {
                        throw SMFError(offset: statusAt, expected: "expected a status byte (running status with no status before it), found data byte 0x\(String(status, radix: 16))")
                    }
                    status = running
                    at -= 1
                } else if status >= 0xF0 {
                    throw SMFError(offset: statusAt, expected: "expected a channel message, meta event or SysEx, found status 0x\(String(status, radix: 16))")
                }
                running = status
                let n = MIDIMessage.length(status: status) - 1
                let d1 = try byte("a data byte")
                let d2 = n == 2 ? try byte("a data byte") : 0
                guard d1 < 0x80, d2 < 0x80 else {
                    throw SMFError(offset: at - 1, expected: "expected a data byte (0…127), found 0x\(String(d1 >= 0x80 ? d1 : d2, radix: 16))")
                }
                events.append(.init(tick: tick, kind: .message(MIDIMessage(status: status, data1: d1, data2: d2))))
            }
        }
        return (events, tick)
    }

    private func be32(at i: Int, what: String) throws(SMFError) -> Int {
        guard i + 4 <= bytes.count else { throw SMFError(offset: i, expected: "expected \(what) (4 bytes), found the end of the file") }
        return Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
    }

    private func be16(at i: Int, what: String) throws(SMFError) -> Int {
        guard i + 2 <= bytes.count else { throw SMFError(offset: i, expected: "expected \(what) (2 bytes), found the end of the file") }
        return Int(bytes[i]) << 8 | Int(bytes[i + 1])
    }
}
