// SPDX-License-Identifier: GPL-3.0-or-later
import BendMIDI
import BendTestSupport
import XCTest

final class StandardMIDIFileTests: XCTestCase {
    /// A header (format, tracks, 96 ticks per quarter) and one track chunk of `track`
    /// bytes whose length field says `length` (default: the true length).
    private func file(format: UInt8 = 0, tracks: UInt8 = 1, _ track: [UInt8], length: UInt32? = nil) -> [UInt8] {
        let n = length ?? UInt32(track.count)
        return Array("MThd".utf8) + [0, 0, 0, 6, 0, format, 0, tracks, 0, 96]
            + Array("MTrk".utf8) + [UInt8(n >> 24), UInt8(n >> 16 & 255), UInt8(n >> 8 & 255), UInt8(n & 255)] + track
    }

    /// Malformed files: the byte offset and what was expected there. The track's
    /// first byte is at offset 22.
    func testMalformedFilesNameTheOffsetAndWhatWasExpected() {
        let eot: [UInt8] = [0, 0xFF, 0x2F, 0]
        let table: [(String, [UInt8], Int, String)] = [
            ("not MIDI", Array("RIFF\0\0\0\0WAVE".utf8), 0, "\"MThd\""),
            ("short header", Array("MThd".utf8) + [0, 0, 0, 6, 0, 0], 4, "truncated header"),
            ("header length 2", Array("MThd".utf8) + [0, 0, 0, 2, 0, 0], 4, "at least 6"),
            ("format 2", file(format: 2, eot), 8, "format 0 or 1"),
            ("format 0 with 2 tracks", file(format: 0, tracks: 2, eot), 10, "1 track"),
            ("impossible chunk length", file([0, 0x90, 60, 100], length: 0xFFFF_FFF0), 18, "truncated chunk"),
            ("truncated chunk", Array(file([0, 0x90, 60, 100, 0, 0x80, 60, 0] + eot).dropLast(5)), 18, "truncated chunk"),
            ("missing second track", file(format: 1, tracks: 2, eot), 26, "track chunk 2 of 2"),
            ("running status with no status", file([0, 60, 100] + eot), 23, "running status with no status"),
            ("delta time of 5 bytes", file([0x81, 0x80, 0x80, 0x80, 0] + eot), 22, "at most 4 bytes"),
            ("meta past the chunk", file([0, 0xFF, 0x01, 0x20, 65]), 25, "meta event length 32"),
            ("SysEx past the chunk", file([0, 0xF0, 0x7F, 1]), 24, "SysEx length 127"),
            ("note cut by a status", file([0, 0x90, 60, 0x80, 60, 0] + eot), 25, "a data byte"),
            ("note cut by the chunk end", file([0, 0x90, 60]), 25, "end of the track chunk"),
            ("tempo of 2 bytes", file([0, 0xFF, 0x51, 2, 1, 2] + eot), 25, "tempo of length 3"),
            ("system common status", file([0, 0xF2, 1, 2] + eot), 23, "found status 0xf2"),
        ]
        for (what, bytes, offset, message) in table {
            do {
                _ = try StandardMIDIFile.parse(bytes)
                XCTFail("\(what): parsed")
            } catch {
                XCTAssertEqual(error.offset, offset, "\(what): \(error)")
                XCTAssertTrue(error.expected.contains(message), "\(what): \(error)")
            }
        }
    }

    func testUnknownChunksAreSkippedAndRunningStatusSurvivesMeta() throws {
        let track: [UInt8] = [0, 0x90, 60, 100, 10, 62, 100, 0, 0xFF, 0x01, 1, 65, 5, 64, 100, 0, 0xF0, 2, 1, 0xF7, 0, 0xFF, 0x2F, 0]
        let bytes = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0, 96] + Array("XFIH".utf8) + [0, 0, 0, 2, 9, 9]
            + Array("MTrk".utf8) + [0, 0, 0, UInt8(track.count)] + track
        let f = try StandardMIDIFile.parse(bytes)
        XCTAssertEqual(f.tracks[0].map(\.tick), [0, 10, 15, 15])
        XCTAssertEqual(f.tracks[0].map(\.kind), [.message(.noteOn(0, 60, 100)), .message(.noteOn(0, 62, 100)), .message(.noteOn(0, 64, 100)),
                                                 .sysEx([0xF0, 1, 0xF7])])  // kept whole, for the interpreter
    }

    func testTempoMapAndSMPTEDivision() throws {
        // 96 ticks/quarter: 120 bpm, then 60 bpm from tick 192 (1 s).
        let track: [UInt8] = [0, 0x90, 60, 1, 0x81, 0x40, 0xFF, 0x51, 3, 0x0F, 0x42, 0x40, 0x60, 0x80, 60, 0, 0, 0xFF, 0x2F, 0]
        let f = try StandardMIDIFile.parse(file(track))
        XCTAssertEqual(f.timedMessages().map(\.seconds), [0, 2])
        // SMPTE 25 fps × 40 ticks: 1000 ticks a second.
        var smpte = file([0x87, 0x68, 0x90, 60, 1] + [0, 0xFF, 0x2F, 0])
        smpte[12] = 0xE7; smpte[13] = 40
        XCTAssertEqual(try StandardMIDIFile.parse(smpte).timedMessages().map(\.seconds), [1.0])
    }

    /// The writer's files (format 0, running status) read back to the same messages and ticks.
    func testWriterRoundTrip() throws {
        var rng = SplitMix(seed: 3)
        var events: [(tick: UInt64, message: MIDIMessage)] = []
        var tick: UInt64 = 0
        for _ in 0..<2000 {
            tick += UInt64.random(in: 0...300, using: &rng) * (Bool.random(using: &rng) ? 1 : 1000)
            let status = [0x80, 0x90, 0xA0, 0xB0, 0xC0, 0xD0, 0xE0].randomElement(using: &rng)! | UInt8.random(in: 0...1, using: &rng)
            events.append((tick, MIDIMessage(status: UInt8(status), data1: .random(in: 0...127, using: &rng),
                                             data2: MIDIMessage.length(status: UInt8(status)) == 3 ? .random(in: 0...127, using: &rng) : 0)))
        }
        let bytes = StandardMIDIFile.format0(events: events, ticksPerQuarter: 960, microsecondsPerQuarter: 400_000)
        let f = try StandardMIDIFile.parse(bytes)
        XCTAssertEqual(f.division, .ticksPerQuarter(960))
        XCTAssertEqual(f.tracks[0].first?.kind, .tempo(microsecondsPerQuarter: 400_000))
        let read = f.tracks[0].compactMap { e -> (UInt64, MIDIMessage)? in if case let .message(m) = e.kind { (e.tick, m) } else { nil } }
        XCTAssertEqual(read.map(\.0), events.map(\.tick))
        XCTAssertEqual(read.map(\.1), events.map(\.message))
        // Running status: 100 note-ons on one channel take one status byte.
        let same = StandardMIDIFile.format0(events: (0..<100).map { (UInt64($0), MIDIMessage.noteOn(0, $0, 100)) }, ticksPerQuarter: 96)
        XCTAssertEqual(same.count, 14 + 8 + 7 + 1 + 100 * 3 + 4)
    }
}

extension StandardMIDIFileTests {
    /// A note never released ends at the file's end (its end-of-track), not at its own start.
    func testHeldNotesEndAtTheEndOfTrack() throws {
        // 96 ticks/quarter at 120 bpm: note-on at 0, end of track at tick 192 (1 s).
        let bytes = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0, 96] + Array("MTrk".utf8)
            + [0, 0, 0, 9, 0, 0x90, 60, 100, 0x81, 0x40, 0xFF, 0x2F, 0]
        let f = try StandardMIDIFile.parse(bytes)
        XCTAssertEqual(f.duration, 1)
        let script = try MIDIFileScript.script(f)
        XCTAssertEqual(script.entries.map(\.time), [0, 1])
        XCTAssertEqual(script.entries.last?.event.touchPhase?.phase, .up)
    }
}
