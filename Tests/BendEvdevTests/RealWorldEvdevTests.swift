// SPDX-License-Identifier: GPL-3.0-or-later
import BendEvdev
import XCTest

/// Every recording of `realworld/evdev/` through the decoder, with LOG.md's expectations.
final class RealWorldEvdevTests: XCTestCase {
    func testRW01TwoFingersFollowTheirOwnSlotsAndEndInOrder() throws {
        let r = try Recordings.load("RW-01")
        XCTAssertEqual(EvdevDeviceKind.classify(r.device), .touch(.touchscreen, .slots))
        let frames = decode(r)
        let s = TouchSummary(frames)
        XCTAssertEqual(s.downs, 2)
        XCTAssertEqual(s.ups, 2)
        XCTAssertEqual(s.maxAtOnce, 2)
        XCTAssertEqual(s.inconsistencies, 0)
        // The first touch starts in implicit slot 0 at its MT position (539, 167), not at
        // the stale header values (382, 393); y is flipped.
        guard case let .touch(1, .down, x, y) = frames[0].events[0] else { return XCTFail("\(frames[0])") }
        XCTAssertEqual(x, 539.0 / 799, accuracy: 1e-9)
        XCTAssertEqual(y, 1 - 167.0 / 479, accuracy: 1e-9)
        // Slot 1 (touch 2) ends at 0.810 s, slot 0 (touch 1) at 0.824 s.
        XCTAssertEqual(s.upTimes[2]!, 0.810, accuracy: 0.001)
        XCTAssertEqual(s.upTimes[1]!, 0.824, accuracy: 0.001)
        XCTAssertTrue(s.allInRange)
    }

    func testRW02NineFastTapsEachDownAndUpNeverTwoAtOnce() throws {
        let s = TouchSummary(decode(try Recordings.load("RW-02")))
        XCTAssertEqual(s.downs, 9)
        XCTAssertEqual(s.ups, 9)
        XCTAssertEqual(s.maxAtOnce, 1)
        XCTAssertEqual(s.inconsistencies, 0)
        let durations = (1...9).map { id in Int(((s.upTimes[UInt32(id)]! - s.downTimes[UInt32(id)]!) * 1000).rounded()) }
        for (d, expected) in zip(durations, [96, 83, 82, 82, 83, 82, 83, 110, 110]) {
            XCTAssertEqual(d, expected, accuracy: 1, "\(durations)")
        }
    }

    func testRW03FiveConcurrentTouchesTrackingIDZeroUTF8Name() throws {
        let r = try Recordings.load("RW-03")
        XCTAssertEqual(r.device.name, "Advanced Silicon S.A. CoolTouch® System")
        XCTAssertEqual(r.device.absolute[EvdevCode.absMTPositionX]?.resolution, 55)
        let frames = decode(r)
        let s = TouchSummary(frames)
        XCTAssertEqual(s.downs, 12)
        XCTAssertEqual(s.ups, 12)
        XCTAssertEqual(s.maxAtOnce, 5)
        XCTAssertEqual(s.stillDown, [])
        XCTAssertEqual(s.inconsistencies, 0)
        XCTAssertTrue(s.allInRange)
        // Tracking id 0 is the first touch, at the first frame.
        XCTAssertEqual(s.downTimes[1], 0)
        // Five at once at t ≈ 12.473 s.
        var down = 0, fiveAt: Double?
        for f in frames {
            for case let .touch(_, phase, _, _) in f.events { down += phase == .down ? 1 : phase == .up ? -1 : 0 }
            if down == 5 && fiveAt == nil { fiveAt = Double(f.micros) / 1e6 }
        }
        XCTAssertEqual(fiveAt ?? 0, 12.473, accuracy: 0.01)
    }

    func testRW04ProtocolAMatchedFrameToFrameAtMostTwoTouches() throws {
        let r = try Recordings.load("RW-04")
        XCTAssertFalse(r.device.hasProperty(EvdevCode.propDirect))
        XCTAssertEqual(EvdevDeviceKind.classify(r.device), .touch(.touchscreen, .contacts))
        let frames = decode(r)
        let s = TouchSummary(frames)
        // Two fingers: two touches, not one per frame although contacts swap order.
        XCTAssertEqual(s.downs, 2)
        XCTAssertEqual(s.ups, 2)
        XCTAssertEqual(s.maxAtOnce, 2)
        XCTAssertEqual(s.stillDown, [])
        XCTAssertTrue(s.allInRange)
        // Epoch timestamps become times from the first event.
        XCTAssertEqual(Double(frames.first!.micros), 0)
        XCTAssertEqual(Double(frames.last!.micros) / 1e6, 1357751034.709837 - 1357751031.716015, accuracy: 1e-6)
    }

    func testRW05ProtocolATouchpadNegativeCoordinatesClickIsNoTouch() throws {
        let r = try Recordings.load("RW-05")
        XCTAssertEqual(EvdevDeviceKind.classify(r.device), .touch(.touchpad, .contacts))
        let frames = decode(r)
        let s = TouchSummary(frames)
        XCTAssertEqual(s.maxAtOnce, 3)
        XCTAssertEqual(s.stillDown, [])
        XCTAssertEqual(s.inconsistencies, 0)
        XCTAssertTrue(s.allInRange)
        // Five BTN_TOUCH 1…0 periods; the finger count within a period only grows or
        // shrinks (no restarts): 8 touches, none started by BTN_LEFT alone.
        XCTAssertEqual(s.downs, 8)
        // MT data one frame before BTN_TOUCH=1 does not play: the first touch starts
        // with BTN_TOUCH (1332478501.151455 s, 8 ms after the first event).
        XCTAssertEqual(Double(frames[0].micros) / 1e6, 1332478501.151462 - 1332478501.143449, accuracy: 1e-6)
        // x −749 of −4620…5140 normalises to 0.397.
        guard case let .touch(_, .down, x, _) = frames[0].events[0] else { return XCTFail() }
        XCTAssertEqual(x, (-760.0 + 4620) / 9760, accuracy: 1e-9)
    }

    func testRW06OutOfRangeClampedShortTouchesEndsMidTouch() throws {
        let r = try Recordings.load("RW-06")
        XCTAssertEqual(EvdevDeviceKind.classify(r.device), .touch(.touchpad, .slots))
        var decoder = EvdevDecoder(device: r.device)
        var all: [EvdevReplay.Frame] = []
        for e in r.events {
            let out = decoder.feed(e)
            if !out.isEmpty { all.append(EvdevReplay.Frame(micros: e.micros, events: out)) }
        }
        let s = TouchSummary(all)
        // Tracking ids 2257…2264: eight touches, each short slot-1 touch its own.
        XCTAssertEqual(s.downs, 8)
        XCTAssertEqual(s.ups, 7)
        XCTAssertEqual(s.stillDown.count, 1, "slot 0 still holds 2260 at the end")
        XCTAssertEqual(s.inconsistencies, 0)
        XCTAssertTrue(s.allInRange)
        XCTAssertEqual(s.xs.min(), 0, "x 1298 below the declared 1472 clamps to 0")
        // RW-40 A: the device goes away: its last touch ends.
        let gone = decoder.deviceRemoved()
        XCTAssertEqual(gone, [.touch(id: s.stillDown.first!, phase: .up, x: 0, y: 0)])
        XCTAssertEqual(decoder.activeTouches, [])
    }

    func testRW07SemiMTPlaysSlotZeroOnlyNewIDRetriggersWithoutLeak() throws {
        let r = try Recordings.load("RW-07")
        XCTAssertEqual(EvdevDeviceKind.classify(r.device), .touch(.touchpad, .semiMTSlots))
        let frames = decode(r)
        let s = TouchSummary(frames)
        XCTAssertEqual(s.maxAtOnce, 1)
        XCTAssertEqual(s.downs, 2, "ids 397 and 399 in slot 0")
        XCTAssertEqual(s.ups, 2)
        XCTAssertEqual(s.inconsistencies, 0)
        // 397 ends (frame n) before 399 starts (frame n+1).
        XCTAssertLessThanOrEqual(s.upTimes[1]!, s.downTimes[2]!)
    }

    func testRW08MouseSurfaceSlotNineNegativeY() throws {
        let r = try Recordings.load("RW-08")
        let kind = EvdevDeviceKind.classify(r.device)
        XCTAssertEqual(kind, .touch(.mouseSurface, .slots))
        XCTAssertFalse(kind.takenByAuto)
        let s = TouchSummary(decode(r))
        XCTAssertEqual(s.downs, 1, "touch size dropping to 0 is not a new touch")
        XCTAssertEqual(s.ups, 1)
        XCTAssertTrue(s.allInRange)
        // y −34…−25 of −1589…2047 → screen 0.43; pad y = 1 − that.
        XCTAssertEqual(s.ys.first!, 1 - (-34.0 + 1589) / 3636, accuracy: 0.01)
    }

    func testRW09UndeclaredAxisIgnoredOneTouchDragsUpAndDown() throws {
        let r = try Recordings.load("RW-09")
        XCTAssertNil(r.device.absolute[0x1d])
        XCTAssertTrue(r.events.contains { $0.type == EvdevCode.evAbs && $0.code == 0x1d })
        let frames = decode(r)
        let s = TouchSummary(frames)
        XCTAssertEqual(s.downs, 1)
        XCTAssertEqual(s.ups, 1)
        let reports = r.events.filter { $0.type == 0 && $0.code == 0 }.count
        XCTAssertEqual(reports, 322)
        XCTAssertLessThan(frames.count, reports, "frames carrying only 0x1d change nothing")
        XCTAssertGreaterThan(s.ys.max()! - s.ys.min()!, 0.5, "the drag covers half the screen")
    }

    func testRW14ETouchOnZAndRXTwoTouchesAtRealPositions() throws {
        let r = try Recordings.load("RW-14")
        XCTAssertEqual(EvdevDeviceKind.classify(r.device), .touch(.tablet, .single))
        let s = TouchSummary(decode(r))
        XCTAssertEqual(s.downs, 2)
        XCTAssertEqual(s.ups, 2)
        XCTAssertEqual(s.stillDown, [])
        // Positions from ABS_Z/ABS_RX: values 426…3711 of 30…4040, never the minimum.
        XCTAssertEqual(s.xs.min()!, (426.0 - 30) / 4010, accuracy: 0.002)
        XCTAssertEqual(s.xs.max()!, (3711.0 - 30) / 4010, accuracy: 0.002)
    }

    /// RW-14's touches reach only 426…3711 of x's declared 30…4040 (and 415…3576 of y's
    /// 60…4035): without calibration the pad's ends — the pitch range's — are never
    /// played. With `--axis-range auto` the ranges widen to what the device sends, so
    /// each end is reached (x and y exactly 0 and 1), and every point stays on the pad;
    /// with the ranges given for its id (0eef:0001) the same; a range given for another
    /// device changes nothing.
    func testRW14CalibrationReachesTheEndsOfThePitchRange() throws {
        let r = try Recordings.load("RW-14")
        func summary(_ values: [String]) throws -> TouchSummary {
            var mapping = EvdevMapping()
            for v in values { try mapping.calibration.add(v) }
            return TouchSummary(decode(r, mapping: mapping))
        }
        let declared = try summary([])
        XCTAssertGreaterThan(declared.xs.min()!, 0.09)
        XCTAssertLessThan(declared.xs.max()!, 0.92)
        for values in [["auto"], ["0eef:0001=426:3711,415:3576"], ["auto", "0eef:0001=426:3711,415:3576"]] {
            let s = try summary(values)
            XCTAssertEqual(s.downs, 2, "\(values)")
            XCTAssertEqual(s.ups, 2, "\(values)")
            XCTAssertEqual(s.xs.min(), 0, "\(values): the low end of the pitch range")
            XCTAssertEqual(s.xs.max(), 1, "\(values): the high end")
            XCTAssertEqual(s.ys.min(), 0, "\(values)")
            XCTAssertEqual(s.ys.max(), 1, "\(values)")
            XCTAssertTrue(s.allInRange, "\(values)")
        }
        let given = try summary(["0eef:0001=426:3711,415:3576"])
        for (x, d) in zip(given.xs, declared.xs) {
            XCTAssertEqual(x, (d * 4010 + 30 - 426) / (3711 - 426), accuracy: 1e-9, "a given range scales every point")
        }
        // Learnt: once the device has sent its extremes, the range is theirs. The
        // recording played twice to one decoder: the second time every point is where
        // the given range puts it (none clamped to an end).
        var mapping = EvdevMapping()
        try mapping.calibration.add("auto")
        let twice = TouchSummary(EvdevReplay.frames(device: r.device, events: r.events + r.events, mapping: mapping, releaseAtEnd: true))
        XCTAssertEqual(twice.downs, 4)
        XCTAssertEqual(twice.xs.count, try summary(["auto"]).xs.count + given.xs.count, "the second time moves as the given range's")
        for (learnt, known) in [(twice.xs.suffix(given.xs.count), given.xs), (twice.ys.suffix(given.ys.count), given.ys)] {
            for (a, b) in zip(learnt, known) { XCTAssertEqual(a, b, accuracy: 1e-9) }
        }
        let other = try summary(["1234:5678=426:3711,415:3576"])
        XCTAssertEqual(other.xs, declared.xs, "a range for another device")
    }

    /// `--axis-range` values that are not one say what was expected.
    func testAxisRangeValuesAreChecked() {
        var c = EvdevCalibration()
        for bad in ["", "1:2", "1:2,3", "5:5,0:1", "9:1,0:1", "0eef=1:2,3:4", "0eef:1=1:2,3:4", "a:b,c:d", "1:2=3:4=5:6,7:8"] {
            XCTAssertThrowsError(try c.add(bad), bad) { error in
                XCTAssertTrue("\(error)".contains("expected auto, XMIN:XMAX,YMIN:YMAX or VVVV:PPPP=XMIN:XMAX,YMIN:YMAX"), "\(error)")
            }
        }
        XCTAssertEqual(c, EvdevCalibration())
        XCTAssertNoThrow(try c.add("-1589:2047,0:3636"))
        XCTAssertNoThrow(try c.add("0EEF:0001=30:4040,60:4035"))
        XCTAssertEqual(c.ranges.count, 2)
        XCTAssertEqual(c.ranges[0].x, -1589...2047)
        XCTAssertEqual(c.ranges[1].device?.vendor, 0x0eef)
    }

    func testEveryRecordingEndsWithNoTouchDownWhenItsDeviceGoes() throws {
        for id in ["RW-01", "RW-02", "RW-03", "RW-04", "RW-05", "RW-06", "RW-07", "RW-08", "RW-09", "RW-14"] {
            let s = TouchSummary(decode(try Recordings.load(id), releaseAtEnd: true))
            XCTAssertEqual(s.stillDown, [], id)
            XCTAssertEqual(s.downs, s.ups, id)
            XCTAssertEqual(s.inconsistencies, 0, id)
            XCTAssertTrue(s.allInRange, id)
        }
    }
}
