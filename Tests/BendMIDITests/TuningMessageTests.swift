// SPDX-License-Identifier: GPL-3.0-or-later
import BendMIDI
import BendTestSupport
import XCTest

/// Issue 28: MIDI tuning messages — RPN 1/2, master tuning, MTS scale/octave, GS scale
/// tuning — decoded, framed from a live stream and a file, and heard.
final class TuningMessageTests: XCTestCase {
    /// Roland FP-30's own example (its MIDI implementation, p. 19): the Arabian scale on
    /// part 1, checksum 76. A wrong checksum, another address or a cut message is no
    /// tuning message.
    func testGSScaleTuningDecodesRolandsExample() {
        let arabian: [UInt8] = [0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x11, 0x40, 0x3A, 0x6D, 0x3E, 0x34, 0x0D, 0x38, 0x6B,
                                0x3C, 0x6F, 0x40, 0x36, 0x0F, 0x76, 0xF7]
        XCTAssertEqual(TuningSysEx.decode(arabian),
                       .scaleOctave(channels: 1 << 0, cents: [-6, 45, -2, -12, -51, -8, 43, -4, 47, 0, -10, -49], realTime: true))
        var drums = arabian
        drums[6] = 0x10  // block 0: part 10, channel 10
        drums[20] = 0x77  // its checksum
        XCTAssertEqual(TuningSysEx.decode(drums), .scaleOctave(channels: 1 << 9, cents: [-6, 45, -2, -12, -51, -8, 43, -4, 47, 0, -10, -49], realTime: true))
        var part11 = arabian
        part11[6] = 0x1A
        part11[20] = 0x6D
        XCTAssertEqual(TuningSysEx.decode(part11), .scaleOctave(channels: 1 << 10, cents: [-6, 45, -2, -12, -51, -8, 43, -4, 47, 0, -10, -49], realTime: true))
        var badSum = arabian
        badSum[20] = 0x75
        XCTAssertNil(TuningSysEx.decode(badSum))
        var otherAddress = arabian
        otherAddress[7] = 0x41
        XCTAssertNil(TuningSysEx.decode(otherAddress))
        XCTAssertNil(TuningSysEx.decode(Array(arabian.prefix(12)) + [0xF7]))
    }

    /// A GS scale tune written for one note (Roland DT1 to its own address, 40 1x 4k, one
    /// byte) or for a run of notes from one: those notes only, the others keep theirs.
    /// Heard: after the Arabian scale on part 1, A alone +20 cents leaves E at −51; a
    /// sounding A follows at once.
    func testGSScaleTuneOfOneNoteRetunesThatNoteOnly() {
        // 40 11 49 (A on part 1) = +20 cents: 0x40 + 0x11 + 0x49 + 0x54 = 238, sum 18.
        let a: [UInt8] = [0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x11, 0x49, 0x54, 0x12, 0xF7]
        var aCents = KeyCents()
        aCents[9] = 20
        XCTAssertEqual(TuningSysEx.decode(a), .scaleOctave(channels: 1, cents: aCents, realTime: true, keys: 1 << 9))
        // 40 11 4A, two bytes: A# −10, B +5 (0x40 + 0x11 + 0x4A + 0x36 + 0x45 = 278, sum 106).
        let aSharpB: [UInt8] = [0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x11, 0x4A, 0x36, 0x45, 0x6A, 0xF7]
        var twoCents = KeyCents()
        twoCents[10] = -10
        twoCents[11] = 5
        XCTAssertEqual(TuningSysEx.decode(aSharpB), .scaleOctave(channels: 1, cents: twoCents, realTime: true, keys: 3 << 10))
        XCTAssertNil(TuningSysEx.decode([0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x11, 0x4B, 0x36, 0x45, 0x69, 0xF7]), "past B: not the scale tune")
        XCTAssertNil(TuningSysEx.decode([0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x11, 0x49, 0x54, 0x13, 0xF7]), "a wrong checksum")

        var m = Interpreted()
        let arabian: [UInt8] = [0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x11, 0x40, 0x3A, 0x6D, 0x3E, 0x34, 0x0D, 0x38, 0x6B,
                                0x3C, 0x6F, 0x40, 0x36, 0x0F, 0x76, 0xF7]
        m.feed(arabian)
        m.feed([0x90, 69, 100])
        XCTAssertEqual(cents(m.last!.ratio, 1), 0, accuracy: 1e-9, "A is 0 in the Arabian scale")
        m.feed(a)
        XCTAssertEqual(cents(m.last!.ratio, 1), 20, accuracy: 1e-9, "the sounding A follows")
        XCTAssertEqual(cents(m.interpreter.ratio(channel: 0, note: 64), pow(2, -5.0 / 12)), -51, accuracy: 1e-9, "E keeps −51")
        XCTAssertEqual(cents(m.interpreter.ratio(channel: 0, note: 60), pow(2, -9.0 / 12)), -6, accuracy: 1e-9, "C keeps −6")
        XCTAssertEqual(cents(m.interpreter.ratio(channel: 1, note: 69), 1), 0, accuracy: 1e-9, "part 2 untouched")
        XCTAssertEqual(m.interpreter.unusedMessages, 0)
    }

    func testUniversalTuningMessagesDecode() {
        XCTAssertEqual(TuningSysEx.decode([0xF0, 0x7F, 0x7F, 0x04, 0x03, 0x00, 0x50, 0xF7]), .masterFine(cents: 25))
        XCTAssertEqual(TuningSysEx.decode([0xF0, 0x7F, 0x10, 0x04, 0x03, 0x7F, 0x7F, 0xF7]), .masterFine(cents: 8191 * 100 / 8192))
        XCTAssertEqual(TuningSysEx.decode([0xF0, 0x7F, 0x00, 0x04, 0x04, 0x00, 0x3E, 0xF7]), .masterCoarse(semitones: -2))
        // MTS 1-byte, non-real-time, channels 1, 8 and 16: A +20 cents.
        var one: [UInt8] = [0xF0, 0x7E, 0x7F, 0x08, 0x08, 0x02, 0x01, 0x01] + [UInt8](repeating: 64, count: 12) + [0xF7]
        one[8 + 9] = 84
        XCTAssertEqual(TuningSysEx.decode(one), .scaleOctave(channels: 1 | 1 << 7 | 1 << 15, cents: [0, 0, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0], realTime: false))
        // MTS 2-byte, real-time, all channels: C −100 cents, B +100·8191/8192.
        var two: [UInt8] = [0xF0, 0x7F, 0x7F, 0x08, 0x09, 0x03, 0x7F, 0x7F] + [UInt8](repeating: 0, count: 24) + [0xF7]
        for k in 0..<12 { two[8 + 2 * k] = 0x40 }
        two[8] = 0; two[9] = 0
        two[8 + 22] = 0x7F; two[9 + 22] = 0x7F
        let twoCents: [Double] = [-100] + [Double](repeating: 0, count: 10) + [8191 * 100 / 8192]
        XCTAssertEqual(TuningSysEx.decode(two), .scaleOctave(channels: 0xFFFF, cents: KeyCents(twoCents), realTime: true))
        XCTAssertNil(TuningSysEx.decode(Array(two.dropLast(3)) + [0xF7]), "a cut message")
        XCTAssertNil(TuningSysEx.decode([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]), "GM system on: not a tuning")
    }

    /// The stream parser hands a SysEx on whole — split across reads, with a clock byte
    /// inside — and skips one longer than its capacity.
    func testStreamParserHandsOnWholeSysEx() {
        var p = MIDIStreamParser()
        var messages: [MIDIMessage] = [], sysEx: [[UInt8]] = []
        let master: [UInt8] = [0xF0, 0x7F, 0x7F, 0x04, 0x04, 0x00, 0x42, 0xF7]
        for chunk in [Array(master[0..<3]), [0xF8] + Array(master[3...]) + [0x90, 60, 100]] {
            p.parse(chunk, emit: { messages.append($0) }, sysEx: { sysEx.append(Array($0)) })
        }
        XCTAssertEqual(sysEx, [master])
        XCTAssertEqual(messages, [MIDIMessage(status: 0xF8), .noteOn(0, 60, 100)])
        let long = [0xF0] + [UInt8](repeating: 1, count: MIDIStreamParser.sysExCapacity - 1) + [0xF7]
        let longest = [0xF0] + [UInt8](repeating: 2, count: MIDIStreamParser.sysExCapacity - 2) + [0xF7]
        p.parse(long + longest, emit: { messages.append($0) }, sysEx: { sysEx.append(Array($0)) })
        XCTAssertEqual(sysEx, [master, longest], "65 bytes skipped, 64 handed on")
        XCTAssertEqual(p.skippedMessages, 1)
        XCTAssertEqual(p.strayBytes, 0)
    }

    /// SMF SysEx events: whole (F0 … F7), in packets (F0 without F7, continued by F7
    /// events), and an F7 escape that holds a whole SysEx; other escapes are skipped, and
    /// running status survives them.
    func testFileSysExEventsWholeInPacketsAndEscaped() throws {
        let coarse: [UInt8] = [0xF0, 0x7F, 0x7F, 0x04, 0x04, 0x00, 0x42, 0xF7]
        let track: [UInt8] = [0x00, 0xF0, 0x07] + coarse.dropFirst()
            + [0x00, 0xF0, 0x03, 0x7F, 0x7F, 0x04, 0x10, 0xF7, 0x04, 0x03, 0x00, 0x50, 0xF7]  // two packets
            + [0x00, 0x90, 60, 100, 0x00, 0xF7, 0x08] + coarse  // an escape holding a whole SysEx
            + [0x00, 0xF7, 0x01, 0xF8, 0x10, 62, 100]  // an escape (a clock byte), then running status
            + [0x00, 0xFF, 0x2F, 0x00]
        let bytes = MIDIFileBytes.format0(track: track)
        let file = try StandardMIDIFile.parse(bytes)
        XCTAssertEqual(file.timedEvents().map(\.event), [
            .sysEx(coarse), .sysEx([0xF0, 0x7F, 0x7F, 0x04, 0x03, 0x00, 0x50, 0xF7]), .message(.noteOn(0, 60, 100)),
            .sysEx(coarse), .message(.noteOn(0, 62, 100)),
        ])
        // Played: master coarse +2, fine +25 cents on both notes.
        let script = try MIDIFileScript.script(file)
        let ratios = script.entries.compactMap { e -> Double? in
            if case let .pitched(_, .down, r, _, _) = e.event { return r }
            return nil
        }
        XCTAssertEqual(ratios.count, 2)
        XCTAssertEqual(cents(ratios[0], pow(2, -9.0 / 12)), 225, accuracy: 1e-6)
        XCTAssertEqual(cents(ratios[1], pow(2, -7.0 / 12)), 225, accuracy: 1e-6)
    }

    /// RPN 1 and 2 per channel, sounding notes following; CC 121 keeps them, a system
    /// reset clears them; MTS non-real-time leaves a sounding note, real-time moves it.
    func testInterpreterAppliesTuningPerChannel() {
        var m = Interpreted()
        m.feed([0x91, 69, 100])
        m.feed([0xB1, 101, 0, 0xB1, 100, 1, 0xB1, 6, 0x50])  // channel 2: fine +25 cents (8192 + 2048)
        XCTAssertEqual(cents(m.last!.ratio, 1), 25, accuracy: 1e-9, "the sounding note follows")
        m.feed([0xB1, 38, 0x40])  // + 64 = 10304: +25.78 cents
        XCTAssertEqual(cents(m.last!.ratio, 1), 2112.0 * 100 / 8192, accuracy: 1e-9)
        m.feed([0xB1, 100, 2, 0xB1, 6, 61])  // coarse −3
        XCTAssertEqual(cents(m.last!.ratio, 1), -300 + 2112.0 * 100 / 8192, accuracy: 1e-9)
        XCTAssertEqual(cents(m.interpreter.ratio(channel: 0, note: 69), 1), 0, accuracy: 1e-9, "channel 1 untouched")
        m.feed([0xB1, 121, 0])
        XCTAssertEqual(cents(m.interpreter.ratio(channel: 1, note: 69), 1), -300 + 2112.0 * 100 / 8192, accuracy: 1e-9, "reset-all-controllers keeps the tuning")
        m.feed([0xFF])
        XCTAssertEqual(m.interpreter.ratio(channel: 1, note: 69), 1, "a system reset clears it")

        // MTS on channel 3: non-real-time leaves the sounding note, the next one has it.
        var a = [UInt8](repeating: 64, count: 12)
        a[9] = 30  // A −34 cents
        m.feed([0x92, 69, 100])
        let before = m.events.count
        m.feed([0xF0, 0x7E, 0x7F, 0x08, 0x08, 0x00, 0x00, 0x04] + a + [0xF7])
        XCTAssertEqual(m.events.count, before, "no move: the sounding note keeps its tuning")
        m.feed([0xB2, 101, 0, 0xB2, 100, 0, 0xB2, 6, 2])  // a bend-range change moves it: still in 12-TET
        XCTAssertEqual(cents(m.last!.ratio, 1), 0, accuracy: 1e-9)
        m.feed([0x92, 69, 0, 0x92, 69, 100])
        XCTAssertEqual(cents(m.last!.ratio, 1), -34, accuracy: 1e-9, "a note begun after it is retuned")
        a[9] = 94  // real-time: A +30, the sounding note follows
        m.feed([0xF0, 0x7F, 0x7F, 0x08, 0x08, 0x00, 0x00, 0x04] + a + [0xF7])
        XCTAssertEqual(cents(m.last!.ratio, 1), 30, accuracy: 1e-9)
        // Master tuning moves every channel's notes.
        m.feed([0xF0, 0x7F, 0x7F, 0x04, 0x04, 0x00, 0x41, 0xF7])
        XCTAssertEqual(cents(m.last!.ratio, 1), 130, accuracy: 1e-9)
        XCTAssertEqual(m.interpreter.unusedMessages, 0)
        m.feed([0xF0, 0x43, 0x10, 0x4C, 0x00, 0x00, 0x7E, 0x00, 0xF7])  // XG system on: not a tuning
        XCTAssertEqual(m.interpreter.unusedMessages, 1)
    }

    /// Live MIDI in (`MIDIInputFeed`, as JACK's and the sequencer's sources use it): a
    /// GS scale tuning whose bytes come in two reads retunes the channel; the note sounds
    /// at it (FFT, ±1 cent).
    func testLiveFeedHearsATuningSysExSplitAcrossReads() {
        let h = RenderHarness(voices: 8, period: 256, rate: 48_000)
        defer { h.free() }
        let feed = MIDIInputFeed(port: h.port, toneNote: 69)
        let arabian: [UInt8] = [0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x11, 0x40, 0x3A, 0x6D, 0x3E, 0x34, 0x0D, 0x38, 0x6B,
                                0x3C, 0x6F, 0x40, 0x36, 0x0F, 0x76, 0xF7]
        feed.receive(arabian.prefix(9), atFrame: 0)
        feed.receive(arabian.dropFirst(9), atFrame: 0)
        feed.receive([0x90, 64, 127], atFrame: 0)  // E4, −51 cents on part 1
        let left = Measure.channel(h.render(frames: 48_000), 0)
        let f = Measure.peakFrequency(Array(left[4800...]), rate: 48_000)
        XCTAssertEqual(cents(f, 440 * pow(2, -5.0 / 12)), -51, accuracy: 1)
        feed.releaseAll()
    }
}
