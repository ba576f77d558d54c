// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEvdev
import XCTest

/// The decoder on small recordings made for one case each (Fixtures/).
final class DecoderFixtureTests: XCTestCase {
    func testTrackingIDChangeInOneSlotEndsTheOldTouchAndIDReuseIsANewTouch() throws {
        let frames = decode(try Recordings.fixture("tracking-id-reuse.evemu"))
        XCTAssertEqual(frames.map(\.events), [
            [.touch(id: 1, phase: .down, x: 0.1, y: 0.9)],
            [.touch(id: 1, phase: .move, x: 0.2, y: 0.9)],
            // 5 → 6 without −1: the old touch ends, a new one starts, in one frame.
            [.touch(id: 1, phase: .up, x: 0, y: 0), .touch(id: 2, phase: .down, x: 0.3, y: 0.9)],
            [.touch(id: 2, phase: .up, x: 0, y: 0)],
            // Tracking id 5 again: a third touch, not touch 1.
            [.touch(id: 3, phase: .down, x: 0.4, y: 0.9)],
            [.touch(id: 3, phase: .up, x: 0, y: 0)],
        ])
    }

    func testTwoFingersDownAndUpInOneFrame() throws {
        let frames = decode(try Recordings.fixture("two-fingers-one-frame.evemu"))
        XCTAssertEqual(frames.map(\.events), [
            [.touch(id: 1, phase: .down, x: 0.25, y: 0.5), .touch(id: 2, phase: .down, x: 0.75, y: 0.5)],
            [.touch(id: 1, phase: .move, x: 0.25, y: 0.6), .touch(id: 2, phase: .move, x: 0.75, y: 0.4)],
            [.touch(id: 1, phase: .up, x: 0, y: 0), .touch(id: 2, phase: .up, x: 0, y: 0)],
        ])
        XCTAssertEqual(frames.map(\.micros), [0, 100_000, 500_000])
    }

    func testSynDroppedDiscardsThePartialFrameAndTheSyncStateEndsTheLiftedTouch() throws {
        let r = try Recordings.fixture("syn-dropped.evemu")
        var decoder = EvdevDecoder(device: r.device)
        var frames: [[ControlEvent]] = []
        for e in r.events {
            let out = decoder.feed(e)
            if !out.isEmpty { frames.append(out) }
        }
        XCTAssertEqual(decoder.drops, 1)
        XCTAssertEqual(frames, [
            [.touch(id: 1, phase: .down, x: 0.1, y: 0.9)],
            [.touch(id: 1, phase: .move, x: 0.15, y: 0.9)],
            // No move to x 0.9 (the void partial frame); the finger that lifted during
            // the drop ends; the one that landed starts.
            [.touch(id: 1, phase: .up, x: 0, y: 0), .touch(id: 2, phase: .down, x: 0.6, y: 0.4)],
            [.touch(id: 2, phase: .up, x: 0, y: 0)],
        ])
        XCTAssertEqual(decoder.activeTouches, [])
    }

    /// The partial frame before SYN_DROPPED is void even when the sync frame does not
    /// overwrite what it said: touch 1 never moves to x 0.9.
    func testSynDroppedVoidsThePartialFrameTheSyncDoesNotRepeat() throws {
        var decoder = EvdevDecoder(device: try Recordings.fixture("syn-dropped.evemu").device)
        func feed(_ events: [(type: UInt16, code: UInt16, value: Int32)]) -> [ControlEvent] {
            events.flatMap { decoder.feed(InputEvent(micros: 0, type: $0.type, code: $0.code, value: $0.value)) }
        }
        let (abs, syn) = (EvdevCode.evAbs, EvdevCode.evSyn)
        XCTAssertEqual(feed([(abs, EvdevCode.absMTTrackingID, 10), (abs, EvdevCode.absMTPositionX, 100), (abs, EvdevCode.absMTPositionY, 100),
                             (syn, EvdevCode.synReport, 0)]), [.touch(id: 1, phase: .down, x: 0.1, y: 0.9)])
        XCTAssertEqual(feed([(abs, EvdevCode.absMTPositionX, 900), (syn, EvdevCode.synDropped, 0)]), [])
        XCTAssertEqual(feed([(abs, EvdevCode.absMTSlot, 1), (abs, EvdevCode.absMTTrackingID, 11), (abs, EvdevCode.absMTPositionX, 600),
                             (abs, EvdevCode.absMTPositionY, 600), (syn, EvdevCode.synReport, 0)]), [.touch(id: 2, phase: .down, x: 0.6, y: 0.4)])
        XCTAssertEqual(decoder.drops, 1)
        XCTAssertEqual(decoder.activeTouches, [1, 2])
    }

    func testPalmNeverPlaysAndAFingerTurningPalmEnds() throws {
        let frames = decode(try Recordings.fixture("palm.evemu"))
        XCTAssertEqual(frames.map(\.events), [
            [.touch(id: 1, phase: .down, x: 0.3, y: 0.7)],
            [.touch(id: 1, phase: .up, x: 0, y: 0)],
        ])
    }

    func testDeviceRemovedMidTouchEndsEveryTouch() throws {
        let r = try Recordings.fixture("removed-mid-touch.evemu")
        var decoder = EvdevDecoder(device: r.device)
        for e in r.events { _ = decoder.feed(e) }
        XCTAssertEqual(decoder.activeTouches, [1, 2])
        XCTAssertEqual(decoder.deviceRemoved(), [.touch(id: 1, phase: .up, x: 0, y: 0), .touch(id: 2, phase: .up, x: 0, y: 0)])
        XCTAssertEqual(decoder.activeTouches, [])
        XCTAssertEqual(decoder.deviceRemoved(), [], "nothing ends twice")
        // The replay does the same at the end of the recording.
        let s = TouchSummary(decode(r, releaseAtEnd: true))
        XCTAssertEqual(s.downs, 2)
        XCTAssertEqual(s.ups, 2)
        XCTAssertEqual(s.upTimes[1], 0.1)
    }

    /// Tilt after each phase of the accelerometer fixture (frames are 10 ms apart).
    private func tilts(_ mapping: EvdevMapping = EvdevMapping()) throws -> (all: [Double], at: (Double) -> Double?) {
        let frames = decode(try Recordings.fixture("accelerometer.evemu"), mapping: mapping)
        var all: [Double] = []
        var timeline: [(Double, Double)] = []
        for f in frames {
            for case let .tilt(v) in f.events {
                all.append(v)
                timeline.append((Double(f.micros) / 1e6, v))
            }
        }
        return (all, { t in timeline.last { $0.0 <= t + 1e-9 }?.1 })
    }

    func testAccelerometerTiltRestRollLimitsAndNoNaN() throws {
        let r = try Recordings.fixture("accelerometer.evemu")
        XCTAssertEqual(EvdevDeviceKind.classify(r.device), .accelerometer)
        let (all, at) = try tilts()
        XCTAssertTrue(all.allSatisfy { $0.isFinite && $0 >= -1 && $0 <= 1 }, "\(all)")
        // Rest (frames 0…20, ±2 units of jitter on x): 0, and the jitter sends nothing.
        XCTAssertEqual(at(0.20)!, 0, accuracy: 1e-12)
        XCTAssertEqual(all.prefix { _ in true }.first, 0)
        XCTAssertEqual(try XCTUnwrap(at(0.205)), 0, "jitter moved the pan")
        // 45° roll (0.21…0.40 s): ≈ 0.71.
        XCTAssertEqual(at(0.40)!, 0.7071, accuracy: 0.01)
        // +90° (0.41…0.60 s): +1; −90° (0.61…0.80 s): −1.
        XCTAssertEqual(at(0.60)!, 1, accuracy: 0.01)
        XCTAssertEqual(at(0.80)!, -1, accuracy: 0.01)
        // Every axis at its limit: 1/√3, no jump beyond it.
        XCTAssertEqual(at(1.00)!, 1 / 3.0.squareRoot(), accuracy: 0.01)
        // The zero vector (1.01…1.05 s) sends nothing: the last tilt stays.
        XCTAssertEqual(at(1.05)!, at(1.00)!)
        // Smoothed: a 45° step does not arrive in one report.
        let first45 = try XCTUnwrap(at(0.21))
        XCTAssertLessThan(first45, 0.5)
        XCTAssertGreaterThan(first45, 0.1)
    }

    func testInvertTiltFlipsAndTheYAxisIsLevelInARoll() throws {
        let (_, inverted) = try tilts(EvdevMapping(invertTilt: true))
        XCTAssertEqual(inverted(0.60)!, -1, accuracy: 0.01)
        let (_, yAxis) = try tilts(EvdevMapping(tiltAxis: .y))
        XCTAssertEqual(yAxis(0.80)!, 0, accuracy: 0.01)
    }

    func testRotationAndInversionOfPadCoordinates() {
        // Screen point (0.2, 0.1): near the top-left corner.
        func p(_ m: EvdevMapping) -> [Double] {
            let r = m.pad(screenX: 0.2, screenY: 0.1)
            return [(r.x * 1e9).rounded() / 1e9, (r.y * 1e9).rounded() / 1e9]
        }
        XCTAssertEqual(p(EvdevMapping()), [0.2, 0.9])
        XCTAssertEqual(p(EvdevMapping(rotation: .quarter)), [0.9, 0.8])
        XCTAssertEqual(p(EvdevMapping(rotation: .half)), [0.8, 0.1])
        XCTAssertEqual(p(EvdevMapping(rotation: .threeQuarters)), [0.1, 0.2])
        XCTAssertEqual(p(EvdevMapping(invertX: true)), [0.8, 0.9])
        XCTAssertEqual(p(EvdevMapping(invertY: true)), [0.2, 0.1])
    }

    /// A device with more slots than the 64 tracked, opened while its current slot is
    /// beyond them: its events are ignored until an ABS_MT_SLOT names a tracked slot.
    func testACurrentSlotBeyondTheTrackedOnesIsIgnored() throws {
        var device = try Recordings.fixture("two-fingers-one-frame.evemu").device
        device.absolute[EvdevCode.absMTSlot] = AbsInfo(minimum: 0, maximum: 99)
        device.currentSlot = 80
        var decoder = EvdevDecoder(device: device)
        func abs(_ code: UInt16, _ value: Int32) -> [ControlEvent] {
            decoder.feed(InputEvent(micros: 0, type: EvdevCode.evAbs, code: code, value: value))
        }
        let report = InputEvent(micros: 0, type: EvdevCode.evSyn, code: EvdevCode.synReport, value: 0)
        XCTAssertEqual(abs(EvdevCode.absMTTrackingID, 4) + abs(EvdevCode.absMTPositionX, 600) + abs(EvdevCode.absMTPositionY, 600), [])
        XCTAssertEqual(decoder.feed(report), [])
        XCTAssertEqual(abs(EvdevCode.absMTSlot, 0) + abs(EvdevCode.absMTTrackingID, 5) + abs(EvdevCode.absMTPositionX, 500)
                       + abs(EvdevCode.absMTPositionY, 500), [])
        XCTAssertEqual(decoder.feed(report), [.touch(id: 1, phase: .down, x: 0.5, y: 0.5)])
    }

    /// A code the device did not declare is ignored even when the decoder reads that
    /// code (RW-09's undeclared 0x1d is one no tracker reads): an undeclared palm
    /// tool type does not end the touch.
    func testUndeclaredCodesAreIgnored() throws {
        var device = try Recordings.fixture("two-fingers-one-frame.evemu").device
        device.absolute[EvdevCode.absMTToolType] = nil
        var decoder = EvdevDecoder(device: device)
        let events = [(EvdevCode.absMTTrackingID, 1), (EvdevCode.absMTPositionX, 500), (EvdevCode.absMTPositionY, 500),
                      (EvdevCode.absMTToolType, EvdevCode.mtToolPalm)]
        for (code, value) in events { XCTAssertEqual(decoder.feed(InputEvent(micros: 0, type: EvdevCode.evAbs, code: code, value: value)), []) }
        XCTAssertEqual(decoder.feed(InputEvent(micros: 0, type: EvdevCode.evSyn, code: EvdevCode.synReport, value: 0)),
                       [.touch(id: 1, phase: .down, x: 0.5, y: 0.5)])
    }

    func testADeviceOpenedWhileTouchedPlaysItsTouchesFromTheFirstFrame() throws {
        var device = try Recordings.fixture("two-fingers-one-frame.evemu").device
        device.slots = [SlotState(trackingID: -1, x: 0, y: 0), SlotState(trackingID: 40, x: 500, y: 500)]
        device.currentSlot = 1
        var decoder = EvdevDecoder(device: device)
        XCTAssertEqual(decoder.feed(InputEvent(micros: 0, type: EvdevCode.evAbs, code: EvdevCode.absMTPositionX, value: 600)), [])
        XCTAssertEqual(decoder.feed(InputEvent(micros: 0, type: 0, code: 0, value: 0)), [.touch(id: 1, phase: .down, x: 0.6, y: 0.5)])
        XCTAssertEqual(decoder.feed(InputEvent(micros: 1, type: EvdevCode.evAbs, code: EvdevCode.absMTTrackingID, value: -1)), [])
        XCTAssertEqual(decoder.feed(InputEvent(micros: 1, type: 0, code: 0, value: 0)), [.touch(id: 1, phase: .up, x: 0, y: 0)])
    }
}
