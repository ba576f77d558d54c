// SPDX-License-Identifier: GPL-3.0-or-later
/// A Standard MIDI File (SMF), format 0 or 1: its header and tracks, read by a small
/// reader of its own (Debian's libsmf is unmaintained since 2010, and the format is a
/// few chunk and variable-length-quantity rules; the reader is fuzzed in the tests).
///
/// Read: `MThd` (length ≥ 6: format, track count, division), then chunks; `MTrk`
/// chunks hold the tracks, other chunk types are skipped (SMF 1.0). Events: channel
/// messages with running status, meta events (tempo kept, the rest skipped; running
/// status survives them and SysEx, as most readers allow), SysEx: `F0 <length> <bytes>` is a
/// SysEx (F0 and the bytes), whole when its bytes end in F7, otherwise continued by
/// `F7 <length> <bytes>` packets until one ends in F7; an `F7` event outside a SysEx (an
/// "escape") is kept when it holds a whole SysEx (F0 … F7), otherwise skipped. Every
/// length is checked against its chunk and the file.
public struct StandardMIDIFile: Sendable, Equatable {
    /// Ticks and what they measure.
    public enum Division: Sendable, Equatable {
        /// Ticks per quarter note (the tempo map turns them into seconds).
        case ticksPerQuarter(Int)
        /// SMPTE: frames per second (24, 25, 29.97 for drop-frame "29", 30) × ticks per frame.
        case smpte(framesPerSecond: Double, ticksPerFrame: Int)
    }

    /// One event of a track.
    public struct Event: Sendable, Equatable {
        /// Ticks from the start of the track.
        public var tick: UInt64
        public var kind: Kind
        public init(tick: UInt64, kind: Kind) {
            self.tick = tick
            self.kind = kind
        }
    }

    public enum Kind: Sendable, Equatable {
        /// A channel message.
        case message(MIDIMessage)
        /// Set tempo (meta 0x51): microseconds per quarter note.
        case tempo(microsecondsPerQuarter: Int)
        /// A whole System Exclusive message, F0 … F7.
        case sysEx([UInt8])
    }

    /// An event of the merged, timed stream: a channel message or a SysEx.
    public enum TimedEvent: Sendable, Equatable {
        case message(MIDIMessage)
        case sysEx([UInt8])
    }

    /// 0 (one track) or 1 (tracks played together; the first usually holds the tempo map).
    public var format: Int
    public var division: Division
    /// Channel messages and tempo changes of each track, in file order.
    public var tracks: [[Event]]
    /// Each track's end (its end-of-track event, or its last event), ticks.
    public var endTicks: [UInt64]

    public init(format: Int, division: Division, tracks: [[Event]], endTicks: [UInt64] = []) {
        self.format = format
        self.division = division
        self.tracks = tracks
        self.endTicks = endTicks
    }

    /// Default tempo before the first tempo event: 120 quarter notes a minute.
    public static let defaultMicrosecondsPerQuarter = 500_000

    /// Reads a file's bytes.
    /// - Throws: `SMFError` naming the byte offset and what was expected there.
    public static func parse(_ bytes: [UInt8]) throws(SMFError) -> StandardMIDIFile {
        try SMFReader(bytes).read()
    }

    /// True when `bytes` start like a Standard MIDI File (`MThd`), whatever the file's name.
    public static func isMIDI<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        Array(bytes.prefix(4)) == Array("MThd".utf8)
    }

    /// Every channel message of every track, merged in time order (ties: track order,
    /// then file order), with its time in seconds through the tempo map (the tempo events
    /// of all tracks).
    public func timedMessages() -> [(seconds: Double, message: MIDIMessage)] {
        timed().events.compactMap { e in
            if case .message(let m) = e.event { return (e.seconds, m) }
            return nil
        }
    }

    /// Every channel message and SysEx of every track, merged as `timedMessages()`.
    public func timedEvents() -> [(seconds: Double, event: TimedEvent)] { timed().events }

    /// The file's length, seconds: the latest track end through the tempo map.
    public var duration: Double { timed().end }

    /// The tempo map: each tempo change's time (seconds), beat (quarter notes from the
    /// start) and BPM, the file's default 120 at 0 s when no change is there; nil for an
    /// SMPTE division (no beats).
    public func tempoChanges() -> [(seconds: Double, beat: Double, bpm: Double)]? {
        guard case .ticksPerQuarter(let tpq) = division else { return nil }
        let tempos = sortedTempos()
        let map = TempoMap(division: division, tempos: tempos)
        var out: [(seconds: Double, beat: Double, bpm: Double)] = [(0, 0, 60e6 / Double(StandardMIDIFile.defaultMicrosecondsPerQuarter))]
        for t in tempos {
            let change = (map.seconds(tick: t.tick), Double(t.tick) / Double(tpq), 60e6 / Double(t.micros))
            if t.tick == 0 || out.last!.beat == change.1 { out[out.count - 1] = change } else { out.append(change) }
        }
        return out
    }

    /// Every track's tempo events merged in time order (ties: by track, then by place).
    private func sortedTempos() -> [(tick: UInt64, micros: Int)] {
        var tempos: [(tick: UInt64, track: Int, index: Int, micros: Int)] = []
        for (t, track) in tracks.enumerated() {
            for (i, e) in track.enumerated() {
                if case .tempo(let us) = e.kind { tempos.append((e.tick, t, i, us)) }
            }
        }
        tempos.sort { ($0.tick, $0.track, $0.index) < ($1.tick, $1.track, $1.index) }
        return tempos.map { ($0.tick, $0.micros) }
    }

    private func timed() -> (events: [(seconds: Double, event: TimedEvent)], end: Double) {
        var merged: [(tick: UInt64, track: Int, index: Int, event: TimedEvent)] = []
        for (t, track) in tracks.enumerated() {
            for (i, e) in track.enumerated() {
                switch e.kind {
                case .message(let m): merged.append((e.tick, t, i, .message(m)))
                case .sysEx(let bytes): merged.append((e.tick, t, i, .sysEx(bytes)))
                case .tempo: break
                }
            }
        }
        merged.sort { ($0.tick, $0.track, $0.index) < ($1.tick, $1.track, $1.index) }
        let map = TempoMap(division: division, tempos: sortedTempos())
        let lastTick = max(endTicks.max() ?? 0, merged.last?.tick ?? 0)
        return (merged.map { (map.seconds(tick: $0.tick), $0.event) }, map.seconds(tick: lastTick))
    }

    /// Writes a format-0 file: one track of `events` (ticks from the start, non-decreasing)
    /// with running status, one tempo event at tick 0 and an end of track.
    public static func format0(events: [(tick: UInt64, message: MIDIMessage)], ticksPerQuarter: Int,
                               microsecondsPerQuarter: Int = defaultMicrosecondsPerQuarter) -> [UInt8] {
        var track: [UInt8] = [0x00, 0xFF, 0x51, 0x03,
                              UInt8(microsecondsPerQuarter >> 16 & 0xFF), UInt8(microsecondsPerQuarter >> 8 & 0xFF),
                              UInt8(microsecondsPerQuarter & 0xFF)]
        var last: UInt64 = 0
        var running: UInt8 = 0
        for (tick, m) in events {
            appendVLQ(tick >= last ? tick - last : 0, to: &track)
            last = max(last, tick)
            if m.status != running || m.status >= 0xF0 { track.append(m.status) }
            running = m.status < 0xF0 ? m.status : 0
            if m.length > 1 { track.append(m.data1) }
            if m.length > 2 { track.append(m.data2) }
        }
        track += [0x00, 0xFF, 0x2F, 0x00]
        var out = Array("MThd".utf8) + be32(6) + [0, 0, 0, 1, UInt8(ticksPerQuarter >> 8 & 0x7F), UInt8(ticksPerQuarter & 0xFF)]
        out += Array("MTrk".utf8) + be32(track.count) + track
        return out
    }

    static func appendVLQ(_ value: UInt64, to out: inout [UInt8]) {
        let v = min(value, 0x0FFF_FFFF)
        var groups: [UInt8] = [UInt8(v & 0x7F)]
        var rest = v >> 7
        while rest > 0 {
            groups.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        out += groups.reversed()
    }

    private static func be32(_ v: Int) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
}

/// Ticks → seconds through a list of tempo changes.
struct TempoMap {
    /// (tick, seconds at that tick, seconds per tick from there).
    private var segments: [(tick: UInt64, seconds: Double, perTick: Double)]

    init(division: StandardMIDIFile.Division, tempos: [(tick: UInt64, micros: Int)]) {
        switch division {
        case let .smpte(fps, tpf):
            segments = [(0, 0, 1 / (fps * Double(tpf)))]
        case let .ticksPerQuarter(tpq):
            let perTick = { (us: Int) in Double(us) / 1e6 / Double(tpq) }
            segments = [(0, 0, perTick(StandardMIDIFile.defaultMicrosecondsPerQuarter))]
            for (tick, us) in tempos {
                let last = segments[segments.count - 1]
                let s = last.seconds + Double(tick - last.tick) * last.perTick
                if tick == last.tick { segments[segments.count - 1].perTick = perTick(us) } else { segments.append((tick, s, perTick(us))) }
            }
        }
    }

    func seconds(tick: UInt64) -> Double {
        // Binary search: the last segment starting at or before `tick`.
        var lo = 0, hi = segments.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if segments[mid].tick <= tick { lo = mid } else { hi = mid - 1 }
        }
        let s = segments[lo]
        return s.seconds + Double(tick - s.tick) * s.perTick
    }
}
