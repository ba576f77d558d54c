// SPDX-License-Identifier: GPL-3.0-or-later
import BendEvdev
import CEvdev
import XCTest

final class EvemuParserTests: XCTestCase {
    let head = "N: Pad\nI: 0003 1234 5678 0001\nA: 35 0 100 0 0\nA: 36 0 100 0 0\nA: 2f 0 1 0 0\n"

    private func error(_ text: String, file: String = "take.evemu") -> EvemuRecording.ParseError? {
        do { _ = try EvemuRecording.parse(text, file: file); return nil } catch let e as EvemuRecording.ParseError { return e } catch { return nil }
    }

    func testDescriptionFields() throws {
        let r = try EvemuRecording.parse(head + "P: 05 00\nB: 01 00 00 00 00 00 00 00 00\nB: 01 00 00 00 00 00 00 00 00\nB: 01 00 00 00 00 00 00 00 00\nB: 01 00 00 00 00 00 00 00 00\nB: 01 00 00 00 00 00 00 00 00\nB: 01 00 04 00 00 00 00 00 00\nA: 00 -5 5 1 2 40\nE: 1.000001 0003 0035 0042\t# comment\nE: 1.000001 0000 0000 0000\n")
        XCTAssertEqual(r.device.name, "Pad")
        XCTAssertEqual([r.device.bus, r.device.vendor, r.device.product, r.device.version], [3, 0x1234, 0x5678, 1])
        XCTAssertEqual(r.device.properties, [EvdevCode.propPointer, EvdevCode.propButtonpad])
        XCTAssertEqual(r.device.keys, [EvdevCode.btnTouch])
        XCTAssertEqual(r.device.absolute[0], AbsInfo(minimum: -5, maximum: 5, fuzz: 1, flat: 2, resolution: 40))
        XCTAssertEqual(r.events, [InputEvent(micros: 1_000_001, type: 3, code: 0x35, value: 42), InputEvent(micros: 1_000_001, type: 0, code: 0, value: 0)])
    }

    func testMalformedRecordingsNameFileAndLine() {
        XCTAssertEqual(error(head + "X: what\n")?.description, "take.evemu:6: unknown line 'X:'; expected N:, I:, P:, B:, A: or E:")
        XCTAssertEqual(error("E: 0.000000 0000 0000 0\n" + head)?.line, 1)
        XCTAssertEqual(error("E: 0.000000 0000 0000 0\n" + head)?.message, "event before the device description (N: and I: lines expected first)")
        XCTAssertEqual(error(head + "A: 40 0 1 0 0\n")?.message, "unknown axis 0x40 (ABS codes end at 0x3f)")
        XCTAssertEqual(error(head + "E: 0.000000 0003 0041 7\n")?.line, 6)
        XCTAssertEqual(error(head + "E: 0.000000 0003 0035 7\nE: 0.000000 0000 0000 0\nE: 0.010000 0003 00")?.description,
                       "take.evemu:8: expected 'E: seconds.micros type code value', got 3 fields (truncated?)")
        XCTAssertEqual(error(head + "E: 0.000000 0003 0035 7\nE: 0.000000 0000 0000 0\nE: 0.010000 0003 0035 8\n")?.description,
                       "take.evemu:8: truncated: the recording ends inside a frame (no SYN_REPORT after this event)")
        XCTAssertEqual(error(head + "E: 0.000000 0003 0035 seven\n")?.message, "event value 'seven' is not a decimal integer")
        XCTAssertEqual(error(head + "E: 0.5 0003 0035 7\n")?.message, "time '0.5' is not seconds.micros (6 digits)")
        // Found by `make fuzz`: its microseconds overflowed an Int64 (a trap, not an error).
        XCTAssertEqual(error(head + "E: 99999999999999999.000000 0000 0000 0\n")?.message,
                       "time '99999999999999999.000000' is out of range (seconds up to 9000000000000)")
        XCTAssertEqual(error(head + "E: 0.000000 0000 0000 0\nA: 00 0 1 0 0\n")?.message, "device description (A:) after the events")
        XCTAssertEqual(error("# nothing\n")?.message, "no device description (N: and I: lines expected)")
    }

    /// A recording saved with CRLF line ends (a Windows editor, a mail attachment) reads
    /// as the same recording; a bad line is still named by its number.
    func testCRLFLineEndsReadAsLines() throws {
        let text = head + "E: 1.000001 0003 0035 0042 # x\nE: 1.000001 0000 0000 0000\n"
        let crlf = text.replacingOccurrences(of: "\n", with: "\r\n")
        let r = try EvemuRecording.parse(crlf)
        XCTAssertEqual(r.device.name, "Pad")
        XCTAssertEqual(r.device.absolute.keys.sorted(), [0x2f, 0x35, 0x36])
        XCTAssertEqual(r.events, try EvemuRecording.parse(text).events)
        XCTAssertEqual(error((head + "E: 0.000000 0003 0035 seven\n").replacingOccurrences(of: "\n", with: "\r\n"))?.description,
                       "take.evemu:6: event value 'seven' is not a decimal integer")
    }

    func testDescriptionAndEventsFilesTogetherNameTheRightFile() throws {
        let parts = [(file: "dev.desc", text: head), (file: "take.events", text: "E: 0.000000 0003 0035 7\nE: 0.000000 0000 0000 x\n")]
        XCTAssertThrowsError(try EvemuRecording.parse(parts)) { e in
            XCTAssertEqual((e as? EvemuRecording.ParseError)?.description, "take.events:2: event value 'x' is not a decimal integer")
        }
    }

    /// Every `EvdevCode` constant against linux/input-event-codes.h.
    func testCodesMatchTheKernelHeader() {
        let codes: [(ours: Int32, kernel: Int32, name: String)] = [
            (Int32(EvdevCode.evSyn), EV_SYN, "EV_SYN"),
            (Int32(EvdevCode.evKey), EV_KEY, "EV_KEY"),
            (Int32(EvdevCode.evRel), EV_REL, "EV_REL"),
            (Int32(EvdevCode.evAbs), EV_ABS, "EV_ABS"),
            (Int32(EvdevCode.evMax), EV_MAX, "EV_MAX"),
            (Int32(EvdevCode.synReport), SYN_REPORT, "SYN_REPORT"),
            (Int32(EvdevCode.synMTReport), SYN_MT_REPORT, "SYN_MT_REPORT"),
            (Int32(EvdevCode.synDropped), SYN_DROPPED, "SYN_DROPPED"),
            (Int32(EvdevCode.btnTouch), BTN_TOUCH, "BTN_TOUCH"),
            (Int32(EvdevCode.btnToolFinger), BTN_TOOL_FINGER, "BTN_TOOL_FINGER"),
            (Int32(EvdevCode.btnToolPen), BTN_TOOL_PEN, "BTN_TOOL_PEN"),
            (Int32(EvdevCode.keyMax), KEY_MAX, "KEY_MAX"),
            (Int32(EvdevCode.relX), REL_X, "REL_X"),
            (Int32(EvdevCode.relY), REL_Y, "REL_Y"),
            (Int32(EvdevCode.absX), ABS_X, "ABS_X"),
            (Int32(EvdevCode.absY), ABS_Y, "ABS_Y"),
            (Int32(EvdevCode.absZ), ABS_Z, "ABS_Z"),
            (Int32(EvdevCode.absRX), ABS_RX, "ABS_RX"),
            (Int32(EvdevCode.absMTSlot), ABS_MT_SLOT, "ABS_MT_SLOT"),
            (Int32(EvdevCode.absMTPositionX), ABS_MT_POSITION_X, "ABS_MT_POSITION_X"),
            (Int32(EvdevCode.absMTPositionY), ABS_MT_POSITION_Y, "ABS_MT_POSITION_Y"),
            (Int32(EvdevCode.absMTToolType), ABS_MT_TOOL_TYPE, "ABS_MT_TOOL_TYPE"),
            (Int32(EvdevCode.absMTTrackingID), ABS_MT_TRACKING_ID, "ABS_MT_TRACKING_ID"),
            (Int32(EvdevCode.absMax), ABS_MAX, "ABS_MAX"),
            (Int32(EvdevCode.mtToolPalm), MT_TOOL_PALM, "MT_TOOL_PALM"),
            (Int32(EvdevCode.propPointer), INPUT_PROP_POINTER, "INPUT_PROP_POINTER"),
            (Int32(EvdevCode.propDirect), INPUT_PROP_DIRECT, "INPUT_PROP_DIRECT"),
            (Int32(EvdevCode.propButtonpad), INPUT_PROP_BUTTONPAD, "INPUT_PROP_BUTTONPAD"),
            (Int32(EvdevCode.propSemiMT), INPUT_PROP_SEMI_MT, "INPUT_PROP_SEMI_MT"),
            (Int32(EvdevCode.propAccelerometer), INPUT_PROP_ACCELEROMETER, "INPUT_PROP_ACCELEROMETER"),
            (Int32(EvdevCode.propMax), INPUT_PROP_MAX, "INPUT_PROP_MAX"),
        ]
        for c in codes { XCTAssertEqual(c.ours, c.kernel, c.name) }
        XCTAssertEqual(Int(cevdev_input_event_size()), MemoryLayout<input_event>.size)
    }
}
