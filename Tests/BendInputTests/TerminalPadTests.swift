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

    func testKeyLayout() {
        XCTAssertNil(TerminalPad.keyPoint("q"), "q quits")
        XCTAssertTrue(TerminalPad.keyPoint("w")! == (0.15, 0.9))
        XCTAssertTrue(TerminalPad.keyPoint("p")! == (0.95, 0.9))
        XCTAssertTrue(TerminalPad.keyPoint("a")! == (0.075, 0.6))
        XCTAssertTrue(TerminalPad.keyPoint("l")! == (0.875, 0.6))
        XCTAssertTrue(TerminalPad.keyPoint("z")! == (0.125, 0.3))
        XCTAssertTrue(TerminalPad.keyPoint("m")! == (0.725, 0.3))
        XCTAssertNil(TerminalPad.keyPoint("1"))
        let playable = "abcdefghijklmnoprstuvwxyz".unicodeScalars.filter { TerminalPad.keyPoint($0) != nil }
        XCTAssertEqual(playable.count, 25)
    }

    func testLegacyKeysToggleAndShiftedLettersMatch() {
        var pad = TerminalPad(geometry: pad80x24)
        let s = TerminalPad.keyPoint("s")!, id = TerminalPad.touchID(forKey: "s")
        XCTAssertEqual(pad.handle(char("s")), [.touch(id: id, phase: .down, x: s.x, y: s.y)])
        XCTAssertEqual(pad.touches.map(\.label), ["S"])
        XCTAssertEqual(pad.handle(char("S")), [.touch(id: id, phase: .up, x: s.x, y: s.y)])
        XCTAssertEqual(pad.handle(char("s", .ctrl)), [], "ctrl+letter plays nothing")
        XCTAssertEqual(pad.handle(char("s", .alt)), [])
        XCTAssertEqual(pad.handle(.paste("asdf")), [])
        XCTAssertFalse(pad.reportsKeyReleases)
    }

    func testKittyHoldIgnoresRepeatsAndSecondPress() {
        var pad = TerminalPad(geometry: pad80x24)
        _ = pad.handle(.kittyFlags(11))
        let z = TerminalPad.keyPoint("z")!, id = TerminalPad.touchID(forKey: "z")
        let events = pad.handle([char("z"), char("z", [], .repeat), char("z"), char("z", .capsLock, .release)])
        XCTAssertEqual(events, [.touch(id: id, phase: .down, x: z.x, y: z.y), .touch(id: id, phase: .up, x: z.x, y: z.y)])
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
        XCTAssertEqual(pad.handle(mouse(.release, .left, 5, 5)), [], "another button's release")
        XCTAssertEqual(held(pad.handle(mouse(.press, .right, 5, 5)) + pad.handle(mouse(.release, .right, 7, 7))), [])
    }
}

/// The space bar is the sustain control: held where the terminal reports releases
/// (kitty), toggled elsewhere; Escape and the end let it go.
final class TerminalPadSustainTests: XCTestCase {
    func testSpaceTogglesWithoutKeyReleases() {
        var pad = TerminalPad(geometry: pad80x24)
        XCTAssertEqual(pad.handle(char(" ")), [.sustain(true)])
        XCTAssertTrue(pad.sustained)
        XCTAssertEqual(pad.handle(char(" ", [], .repeat)), [])
        XCTAssertEqual(pad.handle(char(" ")), [.sustain(false)])
        XCTAssertEqual(pad.handle(char(" ")), [.sustain(true)])
        let z = TerminalPad.keyPoint("z")!, id = TerminalPad.touchID(forKey: "z")
        _ = pad.handle(char("z"))
        // Escape: the touch ends and sustain lets go, so nothing stays held.
        XCTAssertEqual(pad.handle(key(.escape)), [.touch(id: id, phase: .up, x: z.x, y: z.y), .sustain(false)])
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
