// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendInput
import XCTest

final class TerminalPadTests: XCTestCase {
    func testGeometryCornersAndClamping() {
        let g = pad80x24  // inner cells: columns 2…79, rows 3…20
        XCTAssertEqual(g, PadGeometry(left: 2, top: 3, width: 78, height: 18))
        XCTAssertTrue(g.point(column: 2, row: 3) == (0, 1))     // top left
        XCTAssertTrue(g.point(column: 79, row: 20) == (1, 0))   // bottom right
        XCTAssertTrue(g.point(column: 2, row: 20) == (0, 0))
        XCTAssertTrue(g.point(column: 79, row: 3) == (1, 1))
        XCTAssertTrue(g.point(column: 1, row: 1) == (0, 1))     // border/header: clamped
        XCTAssertTrue(g.point(column: 300, row: 24) == (1, 0))
        let mid = g.point(column: 2 + 77 / 2, row: 3 + 17)
        XCTAssertEqual(mid.x, 38.0 / 77.0, accuracy: 1e-12)
        // cell(x:y:) inverts point(column:row:) on every inner cell.
        for c in 2...79 { for r in 3...20 {
            let p = g.point(column: c, row: r)
            XCTAssertTrue(g.cell(x: p.x, y: p.y) == (c, r), "\(c),\(r)")
        } }
        // One cell wide: the middle, never a division by zero.
        XCTAssertTrue(PadGeometry(left: 5, top: 5, width: 1, height: 1).point(column: 9, row: 1) == (0.5, 0.5))
    }

    func testColumn300OnA320ColumnTerminal() {
        let g = TerminalScreen.layout(columns: 320, rows: 50)
        XCTAssertEqual(g.width, 318)
        XCTAssertEqual(g.point(column: 300, row: 3).x, 298.0 / 317.0, accuracy: 1e-12)
        XCTAssertEqual(g.point(column: 319, row: 3).x, 1)
    }

    func testLegacyKeysToggleAndShiftedLettersMatch() {
        var pad = TerminalPad(geometry: pad80x24)
        XCTAssertEqual(pad.handle(char("s"), at: 0), [keyEvent("s", .down)])
        XCTAssertEqual(pad.touches.map(\.label), ["S"])
        XCTAssertEqual(pad.handle([char("S")], at: 2 * second), [keyEvent("s", .up)])
        XCTAssertEqual(pad.handle(char("s", .ctrl)), [], "ctrl+letter plays nothing")
        XCTAssertEqual(pad.handle(char("s", .alt)), [])
        XCTAssertEqual(pad.handle(.paste("asdf")), [])
        XCTAssertFalse(pad.reportsKeyReleases)
    }

    func testKittyHoldIgnoresRepeatsAndSecondPress() {
        var pad = TerminalPad(geometry: pad80x24)
        _ = pad.handle(.kittyFlags(11))
        let events = pad.handle([char("z"), char("z", [], .repeat), char("z"), char("z", .capsLock, .release)])
        XCTAssertEqual(events, [keyEvent("z", .down), keyEvent("z", .up)])
    }

    func testTiltStepsClampAndRecentre() {
        var pad = TerminalPad(geometry: pad80x24)
        XCTAssertEqual(pad.handle([key(.right), key(.right, [], .repeat), key(.right, [], .release)]), [.tilt(0.1), .tilt(0.2)])
        let many = pad.handle(Array(repeating: key(.right), count: 15))
        XCTAssertEqual(many.count, 8)
        XCTAssertEqual(many.last, .tilt(1))
        XCTAssertEqual(pad.handle(key(.left)), [.tilt(0.9)])
        XCTAssertEqual(pad.handle(key(.down)), [.tilt(0)])
        XCTAssertEqual(pad.handle(key(.left)), [.tilt(-0.1)])
        XCTAssertEqual(pad.handle(char("0")), [.tilt(0)])
        XCTAssertEqual(pad.handle(char("0")), [], "no change, no event")
    }

    func testQuitKeys() {
        for event in [char("q"), char("Q", .shift), char("c", .ctrl), char("c", .ctrl)] {
            var pad = TerminalPad(geometry: pad80x24)
            XCTAssertEqual(pad.handle(event), [])
            XCTAssertTrue(pad.quitRequested, "\(event)")
        }
        var pad = TerminalPad(geometry: pad80x24)
        _ = pad.handle([char("c"), char("q", [], .release), char("q", .ctrl)])
        XCTAssertFalse(pad.quitRequested)
    }

    func testEscapePanicAndEndReleaseEverything() {
        var pad = TerminalPad(geometry: pad80x24)
        var events = pad.handle([mouse(.press, .left, 10, 5), char("a"), char("m")])
        XCTAssertEqual(downs(events), 3)
        events += pad.handle(key(.escape))
        XCTAssertEqual(held(events), [])
        XCTAssertEqual(pad.panicCount, 1)
        // The mouse button is still physically down: its drags no longer play.
        XCTAssertEqual(pad.handle(mouse(.drag, .left, 11, 5)), [])

        // RW-40 B: hang-up while the mouse button is held.
        var pad2 = TerminalPad(geometry: pad80x24)
        let down = pad2.handle(mouse(.press, .left, 10, 5))
        let end = pad2.end()
        let p = pad80x24.point(column: 10, row: 5)
        XCTAssertEqual(down + end, [.touch(id: 0, phase: .down, x: p.x, y: p.y), .touch(id: 0, phase: .up, x: p.x, y: p.y)])
        XCTAssertEqual(pad2.end(), [])
    }

    func testMouseButtonsAndWheel() {
        var pad = TerminalPad(geometry: pad80x24)
        XCTAssertEqual(pad.handle([mouse(.wheelUp, nil, 5, 5), mouse(.motion, nil, 6, 6), mouse(.drag, .left, 6, 6)]), [])
        XCTAssertEqual(downs(pad.handle(mouse(.press, .right, 5, 5))), 1)
        XCTAssertEqual(held(pad.handle(mouse(.press, .right, 5, 5)) + pad.handle(mouse(.release, .right, 7, 7))), [])
        XCTAssertEqual(pad.handle(mouse(.release, .left, 5, 5)), [], "a release with nothing held")
    }

    /// Issue 16: some terminals report every SGR release as button 0. A release naming a
    /// button that is not held ends the most recently pressed held button; the mouse
    /// touch lasts while any button is held, so no release leaves a voice sounding.
    func testReleaseNamingTheWrongButtonEndsTheLatestHeldButton() {
        let p = pad80x24.point(column: 10, row: 5)
        for pressed in [1, 2] {  // middle, right
            var pad = TerminalPad(geometry: pad80x24)
            var decoder = TerminalDecoder()
            let bytes = Array("\u{1B}[<\(pressed);10;5M\u{1B}[<0;10;5m".utf8)
            let events = pad.handle(decoder.feed(bytes, at: 0), at: 0)
            XCTAssertEqual(events, [.touch(id: 0, phase: .down, x: p.x, y: p.y), .touch(id: 0, phase: .up, x: p.x, y: p.y)], "button \(pressed)")
            XCTAssertEqual(pad.touches, [])
        }
        // Two buttons held, both released as button 0: the first release ends the left
        // (named and held), the second the right (the latest held); one touch throughout.
        var pad = TerminalPad(geometry: pad80x24)
        var events = pad.handle([mouse(.press, .left, 10, 5), mouse(.press, .right, 11, 5), mouse(.release, .left, 11, 5)])
        XCTAssertEqual(downs(events), 1, "never more mouse touches than one")
        XCTAssertEqual(held(events), [0], "the right button is still held")
        events += pad.handle(mouse(.release, .left, 11, 5))
        XCTAssertEqual(held(events), [])
        // A release naming no button (urxvt/X10) ends the latest held one too.
        events = pad.handle([mouse(.press, .middle, 10, 5), mouse(.release, nil, 10, 5)])
        XCTAssertEqual(held(events), [])
        // Buttons 8–11 neither start nor end anything.
        events = pad.handle([mouse(.press, .left, 10, 5), mouse(.press, .extra(8), 10, 5), mouse(.release, .extra(8), 10, 5)])
        XCTAssertEqual(held(events), [0])
    }

    /// Issue 16: switching to another window while keys or buttons are held: the terminal
    /// reports the focus-out (mode 1004) and never the releases; every held key and mouse
    /// touch ends there (and sustain lets go). Focus-in changes nothing.
    func testFocusOutEndsEverythingHeld() {
        XCTAssertTrue(TerminalScreen.enter.contains("\u{1B}[?1004h"))
        XCTAssertTrue(TerminalScreen.exit.contains("\u{1B}[?1004l"))
        var decoder = TerminalDecoder()
        XCTAssertEqual(decoder.feed(Array("\u{1B}[I\u{1B}[O".utf8), at: 0), [.focus(true), .focus(false)])
        for kitty in [false, true] {
            var pad = TerminalPad(geometry: pad80x24)
            if kitty { _ = pad.handle(.kittyFlags(11)) }
            var events = pad.handle([mouse(.press, .left, 10, 5), char("a"), char("m"), char(" ")], at: 0)
            XCTAssertEqual(downs(events), 3)
            XCTAssertTrue(pad.sustained)
            events += pad.handle(decoder.feed(Array("\u{1B}[O".utf8), at: second), at: second)
            XCTAssertEqual(held(events), [], "kitty \(kitty)")
            XCTAssertEqual(events.last, .sustain(false))
            XCTAssertEqual(pad.focusLossCount, 1)
            XCTAssertEqual(pad.handle(.focus(true), at: second), [])
            XCTAssertEqual(pad.handle(mouse(.drag, .left, 11, 5), at: second), [], "the button's drags no longer play")
            XCTAssertEqual(pad.handle(.focus(false), at: second), [], "nothing held: nothing to do")
        }
    }
}

/// Issue 16: key auto-repeat in terminals without the kitty protocol (`KeyRepeatRuns`).
final class TerminalPadKeyRepeatTests: XCTestCase {
    let ms: UInt64 = 1_000_000
    let a = TerminalPad.touchID(forKey: "a")

    /// The pad's events for presses of `a` at `times` (ms), then ticks until nothing is
    /// pending; each event with the time (ms) it came at.
    func play(_ times: [UInt64], pad: inout TerminalPad) -> [(UInt64, ControlEvent)] {
        var out: [(UInt64, ControlEvent)] = []
        for t in times {
            if let d = pad.nextDeadline, d <= t * ms { out += pad.tick(at: d).map { (d / ms, $0) } }
            out += pad.handle([char("a")], at: t * ms).map { (t, $0) }
        }
        while let d = pad.nextDeadline { out += pad.tick(at: d).map { (d / ms, $0) } }
        return out
    }

    func phases(_ events: [(UInt64, ControlEvent)]) -> [String] {
        events.compactMap { t, e in
            e.touchPhase.map { "\($0.phase.rawValue)@\(t)" }
        }
    }

    /// A key held for 2 s at a 500 ms initial delay and 30 repeats a second: one note,
    /// from the press to 150 ms after the last repeat.
    func testAHeldKeyIsOneNoteThatEndsWhenTheRepeatsStop() {
        var pad = TerminalPad(geometry: pad80x24)
        let repeats = (0..<45).map { 500 + UInt64($0) * 33 }   // 500 … 1952 ms
        let events = play([0] + repeats, pad: &pad)
        XCTAssertEqual(phases(events), ["down@0", "up@\(1952 + 150)"])
        XCTAssertEqual(pad.touches, [])
        // Slow keyboards too: X11's default 660 ms delay and 25 repeats a second.
        pad = TerminalPad(geometry: pad80x24)
        XCTAssertEqual(phases(play([0] + (0..<20).map { 660 + UInt64($0) * 40 }, pad: &pad)), ["down@0", "up@\(660 + 19 * 40 + 150)"])
    }

    /// A tap latches the note; a later tap stops it; a second tap soon after the first is
    /// a repeat, so the note ends 150 ms after it instead; holding the key that stopped a
    /// note keeps it stopped.
    func testTapsLatchAndStop() {
        var pad = TerminalPad(geometry: pad80x24)
        XCTAssertEqual(phases(play([0], pad: &pad)), ["down@0"])
        XCTAssertEqual(pad.touches.map(\.id), [a], "latched")
        XCTAssertEqual(phases(play([3000], pad: &pad)), ["up@3000"])
        XCTAssertEqual(phases(play([5000, 5300], pad: &pad)), ["down@5000", "up@5450"], "a quick second tap")
        XCTAssertEqual(phases(play([8000], pad: &pad)), ["down@8000"])
        // Held to stop: the first press stops it, its repeats start nothing.
        XCTAssertEqual(phases(play([10000] + (0..<30).map { 10500 + UInt64($0) * 33 }, pad: &pad)), ["up@10000"])
        XCTAssertEqual(pad.touches, [])
    }

    /// Space (sustain) follows the same rule: held space holds sustain while it repeats.
    func testSpaceHeldByRepeats() {
        var pad = TerminalPad(geometry: pad80x24)
        var events = pad.handle([char(" ")], at: 0)
        for k in 0..<10 { events += pad.handle([char(" ")], at: (500 + UInt64(k) * 33) * ms) }
        XCTAssertEqual(events, [.sustain(true)], "repeats never toggle")
        XCTAssertEqual(pad.nextDeadline, (797 + 150) * ms + 1)
        XCTAssertEqual(pad.tick(at: pad.nextDeadline!), [.sustain(false)])
    }

    /// With kitty releases the timing is not used: a key sounds until its release.
    func testKittyKeysIgnoreTheTiming() {
        var pad = TerminalPad(geometry: pad80x24)
        _ = pad.handle(.kittyFlags(11))
        _ = pad.handle([char("a")], at: 0)
        XCTAssertNil(pad.nextDeadline)
        XCTAssertEqual(pad.tick(at: 10_000 * ms), [])
        XCTAssertEqual(held(pad.handle([char("a", [], .release)], at: 10_000 * ms)), [])
    }
}

let second: UInt64 = 1_000_000_000

/// The space bar is the sustain control: held where the terminal reports releases
/// (kitty), toggled elsewhere; Escape and the end let it go.
final class TerminalPadSustainTests: XCTestCase {
    func testSpaceTogglesWithoutKeyReleases() {
        var pad = TerminalPad(geometry: pad80x24)
        XCTAssertEqual(pad.handle(char(" "), at: 0), [.sustain(true)])
        XCTAssertTrue(pad.sustained)
        XCTAssertEqual(pad.handle(char(" ", [], .repeat), at: 0), [])
        XCTAssertEqual(pad.handle([char(" ")], at: 1 * second), [.sustain(false)])
        XCTAssertEqual(pad.handle([char(" ")], at: 2 * second), [.sustain(true)])
        _ = pad.handle([char("z")], at: 2 * second)
        // Escape: the touch ends and sustain lets go, so nothing stays held.
        XCTAssertEqual(pad.handle(key(.escape)), [keyEvent("z", .up), .sustain(false)])
        XCTAssertFalse(pad.sustained)
    }

    func testKittySpaceHoldsWhileHeld() {
        var pad = TerminalPad(geometry: pad80x24)
        _ = pad.handle(.kittyFlags(11))
        // Kitty with flag 8 sends space as CSI 32 u; its release as CSI 32;1:3 u.
        var decoder = TerminalDecoder()
        let events = decoder.feed(Array("\u{1B}[32u\u{1B}[32;1:2u\u{1B}[32;1:3u".utf8), at: 0)
        XCTAssertEqual(pad.handle(events), [.sustain(true), .sustain(false)])
        XCTAssertEqual(pad.handle([char(" "), char(" ")]), [.sustain(true)], "a second press while held does nothing")
        XCTAssertEqual(pad.end(), [.sustain(false)], "the pad's end lets it go")
    }

    func testTheStatusLineSaysSustain() {
        var status = PadStatus()
        status.voices = 3
        XCTAssertFalse(TerminalScreen.lines(status, columns: 100, rows: 24)[22].contains("SUSTAIN"))
        status.sustained = true
        XCTAssertTrue(TerminalScreen.lines(status, columns: 100, rows: 24)[22].contains("voices 3  xruns 0  SUSTAIN"))
    }
}
