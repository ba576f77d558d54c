// SPDX-License-Identifier: GPL-3.0-or-later
import BendDBus
@testable import BendPeers
import XCTest

/// What BlueZ's object tree says, read as bendsynth reads it: which adapter, why none can
/// be used, which devices are instruments. (Against a mock bluetoothd on a private bus:
/// BendAppTests' BlueZTests.)
final class BluetoothDiscoveryTests: XCTestCase {
    func adapter(powered: Bool, state: String? = nil) -> [String: [String: DBusValue]] {
        var props: [String: DBusValue] = ["Powered": .bool(powered), "Address": .string("00:01:02:03:04:05")]
        if let state { props["PowerState"] = .string(state) }
        return [BlueZ.adapterInterface: props]
    }

    func testTheAdapterAndEachReasonItCannotBeUsed() throws {
        XCTAssertEqual(try BlueZ.adapter(in: ["/org/bluez/hci1": adapter(powered: true), "/org/bluez/hci0": adapter(powered: true)]), "/org/bluez/hci0")
        XCTAssertThrowsError(try BlueZ.adapter(in: ["/org/bluez": [:]])) { XCTAssertEqual($0 as? BluetoothUnavailable, .noAdapter) }
        if !BlueZ.rfkillBlocksBluetooth() {
            XCTAssertThrowsError(try BlueZ.adapter(in: ["/org/bluez/hci0": adapter(powered: false)])) { XCTAssertEqual($0 as? BluetoothUnavailable, .poweredOff("hci0")) }
        }
        XCTAssertThrowsError(try BlueZ.adapter(in: ["/org/bluez/hci0": adapter(powered: false, state: "off-blocked")])) {
            XCTAssertEqual($0 as? BluetoothUnavailable, .blocked("hci0"))
            XCTAssertEqual("\($0)", "Bluetooth: adapter hci0 is blocked by rfkill (unblock it: rfkill unblock bluetooth)")
        }
    }

    func testOnlyDevicesOfTheAdapterWhoseUUIDsIncludeTheServiceAreInstruments() {
        let devices: [String: [String: DBusValue]] = [
            "/org/bluez/hci0/dev_11_22_33_44_55_66": ["Address": .string("11:22:33:44:55:66"), "Alias": .string("stage"), "RSSI": .int16(-48),
                                                      "Paired": .bool(true), "UUIDs": .strings(["6A0B2F1E-7C4D-4B8E-9F3A-B3E5D1C20847"])],
            "/org/bluez/hci0/dev_77_88_99_AA_BB_CC": ["Address": .string("77:88:99:AA:BB:CC"), "UUIDs": .strings(["0000110b-0000-1000-8000-00805f9b34fb"])],
            "/org/bluez/hci1/dev_00_00_00_00_00_01": ["UUIDs": .strings([BluetoothProfile.serviceUUID])],
            "/org/bluez/hci0/dev_00_00_00_00_00_02": ["UUIDs": .strings([BluetoothProfile.serviceUUID])],
        ]
        XCTAssertEqual(BluetoothDiscovery.found(in: devices, under: "/org/bluez/hci0"), [
            BluetoothDiscovery.Found(address: "00:00:00:00:00:02", name: "", rssi: nil, paired: false),
            BluetoothDiscovery.Found(address: "11:22:33:44:55:66", name: "stage", rssi: -48, paired: true),
        ])
    }
}
