// SPDX-License-Identifier: GPL-3.0-or-later
import BendInput
import XCTest

/// The RW-30…38 byte streams through the decoder and the pad, against LOG.md section C.
final class TerminalDecoderTests: XCTestCase {
    func testRW30MotionWithFinalMStartsNothing() throws {
        let bytes = try RealWorld.terminal("RW-30_sgr1006_motion_with_final_m.bin")
        let expected: [TerminalEvent] = [
            mouse(.motion, nil, 10, 5), mouse(.motion, nil, 11, 5), mouse(.motion, nil, 12, 5),
            mouse(.press, .left, 12, 5), mouse(.drag, .left, 13, 5), mouse(.drag, .left, 14, 6),
            mouse(.release, .left, 14, 6), mouse(.motion, nil, 15, 6),
        ]
        XCTAssertEqual(decode(bytes), expected)
        XCTAssertEqual(decodeBytewise(bytes), expected)

        var pad = TerminalPad(geometry: pad80x24)
        let control = pad.handle(expected)
        let p = { (c: Int, r: Int) in pad80x24.point(column: c, row: r) }
        XCTAssertEqual(control, [
            .touch(id: 0, phase: .down, x: p(12, 5).x, y: p(12, 5).y),
            .touch(id: 0, phase: .move, x: p(13, 5).x, y: p(13, 5).y),
            .touch(id: 0, phase: .move, x: p(14, 6).x, y: p(14, 6).y),
            .touch(id: 0, phase: .up, x: p(14, 6).x, y: p(14, 6).y),
        ])
        XCTAssertEqual(downs(control), 1)
        XCTAssertTrue(pad.touches.isEmpty)
    }

    func testRW32MalformedReportIsConsumedWhole() throws {
        let bytes = try RealWorld.terminal("RW-32_sgr1006_malformed_NaN_coordinates.bin")
        let expected: [TerminalEvent] = [
            char("a"), char("b"), char("c"), mouse(.press, .left, 1, 1), mouse(.release, .left, 1, 1),
        ]
        XCTAssertEqual(decode(bytes), expected)
        XCTAssertEqual(decodeBytewise(bytes), expected)
        // Keys a, b, c do what they are bound to (toggle their touches: no kitty reply);
        // the click at (1,1) is one more touch, started and ended.
        var pad = TerminalPad(geometry: pad80x24)
        let control = pad.handle(expected)
        XCTAssertEqual(downs(control), 4)
        XCTAssertEqual(held(control), [TerminalPad.touchID(forKey: "a"), TerminalPad.touchID(forKey: "b"),
                                       TerminalPad.touchID(forKey: "c")])
        XCTAssertEqual(control.suffix(2), [.touch(id: 0, phase: .down, x: 0, y: 1), .touch(id: 0, phase: .up, x: 0, y: 1)])
    }

    func testRW34Column300StaysInBothProtocols() throws {
        let sgr = try RealWorld.terminal("RW-34_sgr1006_same_events_col300.bin")
        let urxvt = try RealWorld.terminal("RW-34_urxvt1015_press_drag_release_wheel_col300.bin")
        func expected(release button: MouseButton?) -> [TerminalEvent] {
            [mouse(.press, .left, 300, 10), mouse(.drag, .left, 301, 10), mouse(.drag, .left, 302, 11),
             mouse(.release, button, 302, 11), mouse(.wheelUp, nil, 302, 11), mouse(.wheelDown, nil, 302, 11)]
        }
        XCTAssertEqual(decode(sgr), expected(release: .left))
        XCTAssertEqual(decode(urxvt), expected(release: nil))  // urxvt does not say which button
        XCTAssertEqual(decodeBytewise(sgr), expected(release: .left))
        XCTAssertEqual(decodeBytewise(urxvt), expected(release: nil))

        let geometry = TerminalScreen.layout(columns: 320, rows: 50)
        for bytes in [sgr, urxvt] {
            var pad = TerminalPad(geometry: geometry)
            let control = pad.handle(decode(bytes))
            XCTAssertEqual(downs(control), 1)
            XCTAssertEqual(held(control), [])
            XCTAssertEqual(control.count, 4, "wheel reports add nothing")
            guard case let .touch(_, .down, x, _) = control[0] else { return XCTFail("\(control)") }
            XCTAssertEqual(x, Double(300 - 2) / Double(318 - 1), accuracy: 1e-12)  // not column 44
        }
    }

    func testRW35KittyPressRepeatReleaseMatchesKeyCode() throws {
        let reply = try RealWorld.terminal("RW-35_kitty_flags11_reply.bin")
        let keys = try RealWorld.terminal("RW-35_kitty_flags11_press_repeat_release.bin")
        XCTAssertEqual(decode(reply), [.kittyFlags(11)])
        let expected: [TerminalEvent] = [
            char("a"), char("a", [], .repeat), char("a", [], .repeat), char("a", [], .repeat), char("a", [], .release),
            key(.leftShift, .shift), char("s", .shift), key(.leftShift, [], .release), char("s", [], .release),
            key(.down), key(.down, [], .repeat), key(.down, [], .release),
            key(.pageDown, [.shift, .ctrl]), key(.pageDown, [.shift, .ctrl], .release),
            key(.enter), key(.enter, [], .release),
            key(.escape), key(.escape, [], .release),
        ]
        XCTAssertEqual(decode(keys), expected)
        XCTAssertEqual(decodeBytewise(keys), expected)

        var pad = TerminalPad(geometry: pad80x24)
        XCTAssertEqual(pad.handle(decode(reply)), [])
        XCTAssertTrue(pad.reportsKeyReleases)
        let control = pad.handle(expected)
        XCTAssertEqual(control, [keyEvent("a", .down), keyEvent("a", .up), keyEvent("s", .down), keyEvent("s", .up)])
        XCTAssertEqual(pad.touches, [])
        XCTAssertEqual(pad.panicCount, 1, "Escape acts once (on press, not on release)")
        XCTAssertFalse(pad.quitRequested)
    }

    /// RW-37 delivered as its chunk schedule: ESC at 0 ms, `[<65;59;28M` ESC `[<6` at
    /// 60 ms, `5;59;28M` at 140 ms, ESC at 440 ms, nothing until 1 s.
    static let rw37Schedule: [(ms: UInt64, offset: Int, length: Int)] = [(0, 0, 1), (60, 1, 15), (140, 16, 8), (440, 24, 1)]

    func rw37(_ decoder: TerminalDecoder) throws -> [TerminalEvent] {
        let bytes = try RealWorld.terminal("RW-37_sgr_reports_split_across_reads.bin")
        XCTAssertEqual(bytes.count, 25)
        var d = decoder
        var events: [TerminalEvent] = []
        var previous: UInt64 = 0
        for chunk in Self.rw37Schedule {
            // The reader's poll wakes at each deadline between reads.
            while let deadline = d.nextDeadline, deadline > previous, deadline < chunk.ms * 1_000_000 {
                events += d.tick(at: deadline)
                previous = deadline
            }
            events += d.feed(bytes[chunk.offset..<chunk.offset + chunk.length], at: chunk.ms * 1_000_000)
            previous = chunk.ms * 1_000_000
        }
        events += d.tick(at: 940_000_000)
        return events
    }

    func testRW37SplitReportsWithDefaultTimeout() throws {
        let events = try rw37(TerminalDecoder())
        XCTAssertEqual(events, [mouse(.wheelDown, nil, 59, 28), mouse(.wheelDown, nil, 59, 28), key(.escape)])
        var pad = TerminalPad(geometry: pad80x24)
        XCTAssertEqual(pad.handle(events), [])
        XCTAssertEqual(pad.panicCount, 1, "only the real Escape panics")
    }

    func testRW37EscapeWaitsForItsTimeout() throws {
        let bytes = try RealWorld.terminal("RW-37_sgr_reports_split_across_reads.bin")
        var d = TerminalDecoder()
        XCTAssertEqual(d.feed(bytes[24...], at: 440_000_000), [])
        XCTAssertEqual(d.nextDeadline, 540_000_000)
        XCTAssertEqual(d.tick(at: 539_999_999), [])
        XCTAssertEqual(d.tick(at: 540_000_000), [key(.escape)])
        XCTAssertNil(d.nextDeadline)
    }

    func testRW37ShortTimeoutStillResyncsOnSGR() throws {
        // A 50 ms timeout reports a spurious Escape for chunk 1 (allowed by LOG.md only if
        // the rest still decodes as a mouse report, which it does).
        let events = try rw37(TerminalDecoder(escapeTimeout: 50_000_000))
        XCTAssertEqual(events, [key(.escape), mouse(.wheelDown, nil, 59, 28), mouse(.wheelDown, nil, 59, 28), key(.escape)])
    }

    func testRW38aPasteHoldsSequences() throws {
        let bytes = try RealWorld.terminal("RW-38a_bracketed_paste_with_sequences_inside.bin")
        let expected: [TerminalEvent] = [
            .paste("00:00:3F:00:00:3F \u{1B}[<0;5;5M line2\r\u{1B}[31mred\u{1B}[0m"),
            mouse(.press, .left, 5, 5), mouse(.release, .left, 5, 5),
        ]
        XCTAssertEqual(decode(bytes), expected)
        XCTAssertEqual(decodeBytewise(bytes), expected)
        var pad = TerminalPad(geometry: pad80x24)
        let control = pad.handle(expected)
        XCTAssertEqual(downs(control), 1)
        XCTAssertEqual(control.count, 2)
        XCTAssertEqual(held(control), [])
    }

    func testRW38bLostPasteEndRecoversAfterOneSecond() throws {
        let part1 = try RealWorld.terminal("RW-38b_bracketed_paste_end_marker_lost.part1.bin")
        let part2 = try RealWorld.terminal("RW-38b_bracketed_paste_end_marker_lost.part2_after_2s.bin")
        var d = TerminalDecoder()
        XCTAssertEqual(d.feed(part1, at: 0), [])
        XCTAssertTrue(d.isInPaste)
        XCTAssertEqual(d.nextDeadline, 1_000_000_000)
        XCTAssertEqual(d.tick(at: 999_999_999), [])
        let ended = d.tick(at: 1_000_000_000)
        XCTAssertEqual(ended, [.paste("asdfghjkl\u{1B}[2")])
        let click = d.feed(part2, at: 2_000_000_000)
        XCTAssertEqual(click, [mouse(.press, .left, 7, 7), mouse(.release, .left, 7, 7)])

        // Without a tick in between, the late bytes first end the paste.
        var d2 = TerminalDecoder()
        XCTAssertEqual(d2.feed(part1, at: 0) + d2.feed(part2, at: 2_000_000_000), ended + click)

        var pad = TerminalPad(geometry: pad80x24)
        let control = pad.handle(ended + click)
        XCTAssertEqual(downs(control), 1, "the 9 pasted letters play nothing; the click plays once")
        XCTAssertEqual(held(control), [])
    }

    // MARK: - Other protocols

    func testX10LegacyMouse() {
        // CSI M cb cx cy, each + 32: left press at (10,5), release (button bits 3), wheel.
        let bytes: [UInt8] = [0x1B, 0x5B, 0x4D, 32, 42, 37, 0x1B, 0x5B, 0x4D, 32 + 32, 43, 37,
                              0x1B, 0x5B, 0x4D, 35, 43, 37, 0x1B, 0x5B, 0x4D, 32 + 65, 43, 37]
        let expected = [mouse(.press, .left, 10, 5), mouse(.drag, .left, 11, 5), mouse(.release, nil, 11, 5),
                        mouse(.wheelDown, nil, 11, 5)]
        XCTAssertEqual(decode(bytes), expected)
        XCTAssertEqual(decodeBytewise(bytes), expected)
    }

    func testLegacyArrowsControlBytesAndText() {
        let bytes = Array("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD\u{1B}[1;5C\u{03}é\r\u{1B}x".utf8)
        let expected: [TerminalEvent] = [
            key(.up), key(.down), key(.right), key(.left), key(.up), key(.down), key(.right), key(.left),
            key(.right, .ctrl), char("c", .ctrl), char("é"), key(.enter), char("x", .alt),
        ]
        XCTAssertEqual(decode(bytes), expected)
        XCTAssertEqual(decodeBytewise(bytes), expected)
    }

    func testHomeEndKeypadEnterAndF1ToF4InBothForms() {
        // SS3 (application keypad) and CSI forms name the same keys; SS3 M is keypad Enter.
        let bytes = Array("\u{1B}OH\u{1B}OF\u{1B}OM\u{1B}OP\u{1B}OS\u{1B}[H\u{1B}[F\u{1B}[1;2P\u{1B}[1;5S\u{1B}OZz".utf8)
        let expected: [TerminalEvent] = [
            key(.home), key(.end), key(.enter), key(.function(1)), key(.function(4)),
            key(.home), key(.end), key(.function(1), .shift), key(.function(4), .ctrl), char("z"),
        ]
        XCTAssertEqual(decode(bytes), expected)
        XCTAssertEqual(decodeBytewise(bytes), expected)
    }

    func testUnknownAndOverlongSequencesNeverBecomeKeys() {
        var d = TerminalDecoder()
        // A focus report (an event of its own, never a key), DA reply, a stray paste end, then `z`.
        XCTAssertEqual(d.feed(Array("\u{1B}[I\u{1B}[?62;22c\u{1B}[201~z".utf8), at: 0), [.focus(true), char("z")])
        // An ESC inside an unfinished CSI ends it; the new report decodes.
        XCTAssertEqual(d.feed(Array("\u{1B}[<0;1\u{1B}[<0;2;3M".utf8), at: 0), [mouse(.press, .left, 2, 3)])
        // A cut-short sequence is dropped after the sequence timeout, not typed.
        XCTAssertEqual(d.feed(Array("\u{1B}[<64;1".utf8), at: 0), [])
        XCTAssertEqual(d.tick(at: 499_999_999), [])
        XCTAssertEqual(d.tick(at: 500_000_000), [])
        XCTAssertNil(d.nextDeadline)
        XCTAssertEqual(d.feed(Array("k".utf8), at: 600_000_000), [char("k")])
    }
}
