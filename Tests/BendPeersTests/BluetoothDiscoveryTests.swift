@testable import BendPeers
import XCTest

/// Without an adapter, the SDP record and the inquiry say so plainly (with one, they
/// need a second device and are not exercised here).
final class BluetoothDiscoveryTests: XCTestCase {
    func testWithoutAnAdapterSDPAndInquirySayWhy() throws {
        guard let why = RFCOMMTransport.unavailableReason() else { throw XCTSkip("Bluetooth is present") }
        XCTAssertThrowsError(try BluetoothDiscovery.search(seconds: 1)) { XCTAssertEqual($0 as? PeerError, .noBluetooth(why)) }
        XCTAssertThrowsError(try BluetoothServiceRecord(channel: 7, name: "x")) {
            XCTAssertEqual("\($0)", "no Bluetooth adapter (\(why))")
        }
        XCTAssertEqual(BluetoothDiscovery.serviceUUID.count, 16)
    }
}
