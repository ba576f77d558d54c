// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
@testable import BendEvdev
import XCTest

/// A multitouch device's ABS_MT_PRESSURE as its touches' timbre, when asked
/// (`EvdevMapping.pressure`).
final class PressureTests: XCTestCase {
    func device() -> EvdevDeviceDescription {
        var d = EvdevDeviceDescription(name: "pressure screen")
        d.absolute[EvdevCode.absMTSlot] = AbsInfo(minimum: 0, maximum: 9)
        d.absolute[EvdevCode.absMTTrackingID] = AbsInfo(minimum: 0, maximum: 65_535)
        d.absolute[EvdevCode.absMTPositionX] = AbsInfo(minimum: 0, maximum: 1000)
        d.absolute[EvdevCode.absMTPositionY] = AbsInfo(minimum: 0, maximum: 1000)
        d.absolute[EvdevCode.absMTPressure] = AbsInfo(minimum: 0, maximum: 255)
        d.keys = [EvdevCode.btnTouch]
        d.properties = [0x01]  // INPUT_PROP_DIRECT: a touchscreen
        return d
    }

    func frames(pressure: Bool) -> [ControlEvent] {
        var mapping = EvdevMapping()
        mapping.pressure = pressure
        var decoder = EvdevDecoder(device: device(), mapping: mapping)
        var out: [ControlEvent] = []
        func abs(_ code: UInt16, _ value: Int32) { out += decoder.feed(InputEvent(micros: 0, type: EvdevCode.evAbs, code: code, value: value)) }
        func syn() { out += decoder.feed(InputEvent(micros: 0, type: EvdevCode.evSyn, code: EvdevCode.synReport, value: 0)) }
        abs(EvdevCode.absMTSlot, 0); abs(EvdevCode.absMTTrackingID, 5)
        abs(EvdevCode.absMTPositionX, 500); abs(EvdevCode.absMTPositionY, 500); abs(EvdevCode.absMTPressure, 51); syn()
        abs(EvdevCode.absMTPressure, 204); syn()   // pressure alone changes
        abs(EvdevCode.absMTPositionX, 600); syn()  // a move, pressure unchanged
        abs(EvdevCode.absMTTrackingID, -1); syn()
        return out
    }

    func testPressureIsTheTouchsTimbre() {
        let events = frames(pressure: true)
        guard case let .touch(id, .down, _, _)? = events.first else { return XCTFail("\(events)") }
        let timbres = events.compactMap { e -> Double? in if case let .timbre(i, v) = e, i == id { v } else { nil } }
        XCTAssertEqual(timbres, [0.2, 0.8], "after the down, and when the pressure changed: \(events)")
        XCTAssertFalse(frames(pressure: false).contains { if case .timbre = $0 { true } else { false } }, "not unless asked")
    }
}
