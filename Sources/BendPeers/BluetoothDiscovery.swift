import CBluetooth
import BendSystem
import Glibc

/// Bluetooth discovery for bendsynth: an SDP service record for our service UUID on the
/// instrument, and inquiry plus an SDP search for that UUID on the controller.
/// Both need an adapter and BlueZ's bluetoothd (which serves SDP); without an adapter
/// they throw `PeerError.noBluetooth` before touching anything.
public enum BluetoothDiscovery {
    /// The bendsynth service class UUID, 6a0b2f1e-7c4d-4b8e-9f3a-b3e5d1c20847.
    public static let serviceUUID: [UInt8] = [0x6a, 0x0b, 0x2f, 0x1e, 0x7c, 0x4d, 0x4b, 0x8e,
                                              0x9f, 0x3a, 0xb3, 0xe5, 0xd1, 0xc2, 0x08, 0x47]

    /// An instrument found over Bluetooth.
    public struct Found: Sendable, Equatable {
        /// `XX:XX:XX:XX:XX:XX`.
        public var address: String
        /// The device's Bluetooth name ("" when it did not answer).
        public var name: String
        /// The RFCOMM channel from its service record.
        public var channel: UInt8
    }

    /// Inquiry (about `seconds`, in 1.28 s units, at most 30) and, for every device that
    /// answers, an SDP search for `serviceUUID`. Returns the devices that offer it.
    /// - Throws: `PeerError.noBluetooth` without an adapter, `.system` when inquiry fails.
    /// - Thread: any (blocks for the inquiry and one SDP search per device).
    public static func search(seconds: Double) throws -> [Found] {
        if let why = RFCOMMTransport.unavailableReason() { throw PeerError.noBluetooth(why) }
        let dev = hci_get_route(nil)
        guard dev >= 0 else { throw PeerError.noBluetooth("hci_get_route found no adapter") }
        let sock = hci_open_dev(dev)
        guard sock >= 0 else { throw PeerError.system(SystemError(call: "hci_open_dev(hci\(dev))")) }
        defer { close(sock) }
        var info: UnsafeMutablePointer<inquiry_info>?
        let units = Int32(min(max((seconds / 1.28).rounded(), 1), 30))
        let count = hci_inquiry(dev, units, 255, nil, &info, Int(IREQ_CACHE_FLUSH))
        guard count >= 0 else { throw PeerError.system(SystemError(call: "hci_inquiry(hci\(dev))")) }
        defer { free(info) }
        var found: [Found] = []
        for i in 0..<Int(count) {
            guard var address = info?[i].bdaddr, let channel = channel(of: &address) else { continue }
            var name = [CChar](repeating: 0, count: 248)
            let named = hci_read_remote_name(sock, &address, Int32(name.count), &name, 2_000) >= 0
            found.append(Found(address: RFCOMMTransport.string(address),
                               name: named ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "",
                               channel: channel))
        }
        return found
    }

    /// The RFCOMM channel of `address`'s bendsynth service record, or nil.
    static func channel(of address: inout bdaddr_t) -> UInt8? {
        var any = bendsynth_bdaddr_any()
        guard let session = sdp_connect(&any, &address, UInt32(SDP_RETRY_IF_BUSY)) else { return nil }
        defer { sdp_close(session) }
        // The lists keep pointers to their items: items live on the heap until freed.
        let uuid = UnsafeMutablePointer<CBluetooth.uuid_t>.allocate(capacity: 1)
        let range = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
        uuid.initialize(to: CBluetooth.uuid_t())
        range.initialize(to: 0x0000_ffff)
        var bytes = serviceUUID
        sdp_uuid128_create(uuid, &bytes)
        let search = sdp_list_append(nil, uuid)
        let attrs = sdp_list_append(nil, range)
        defer { sdp_list_free(search, nil); sdp_list_free(attrs, nil); uuid.deallocate(); range.deallocate() }
        var response: UnsafeMutablePointer<sdp_list_t>?
        guard sdp_service_search_attr_req(session, search, SDP_ATTR_REQ_RANGE, attrs, &response) == 0 else { return nil }
        var channel: UInt8?
        var node = response
        while let n = node {
            let record = n.pointee.data.assumingMemoryBound(to: sdp_record_t.self)
            var protos: UnsafeMutablePointer<sdp_list_t>?
            if channel == nil, sdp_get_access_protos(record, &protos) == 0 {
                let port = sdp_get_proto_port(protos, Int32(RFCOMM_UUID))
                if (1...30).contains(port) { channel = UInt8(port) }
                var p = protos
                while let q = p { sdp_list_free(q.pointee.data.assumingMemoryBound(to: sdp_list_t.self), nil); p = q.pointee.next }
                sdp_list_free(protos, nil)
            }
            sdp_record_free(record)
            node = n.pointee.next
        }
        sdp_list_free(response, nil)
        return channel
    }
}

/// The instrument's SDP record (service class `BluetoothDiscovery.serviceUUID`, L2CAP +
/// RFCOMM on its channel, the display name), registered with the local SDP server
/// (bluetoothd) while the value lives.
/// - Thread: setup.
public final class BluetoothServiceRecord: @unchecked Sendable {
    private let session: UnsafeMutablePointer<sdp_session_t>
    private let record: UnsafeMutablePointer<sdp_record_t>

    /// - Throws: `PeerError.noBluetooth` without an adapter; `.system` when the local SDP
    ///   server (bluetoothd) cannot be reached or refuses the record.
    public init(channel: UInt8, name: String) throws {
        if let why = RFCOMMTransport.unavailableReason() { throw PeerError.noBluetooth(why) }
        var any = bendsynth_bdaddr_any(), local = bendsynth_bdaddr_local()
        guard let s = sdp_connect(&any, &local, UInt32(SDP_RETRY_IF_BUSY)) else {
            throw PeerError.system(SystemError(call: "sdp_connect(local SDP server; is bluetoothd running?)"))
        }
        guard let r = sdp_record_alloc() else { sdp_close(s); throw PeerError.system(SystemError(call: "sdp_record_alloc", code: ENOMEM)) }
        // The lists keep pointers to their items: the UUIDs live on the heap until registered.
        let uuids = UnsafeMutablePointer<CBluetooth.uuid_t>.allocate(capacity: 4)
        uuids.initialize(repeating: CBluetooth.uuid_t(), count: 4)
        defer { uuids.deallocate() }
        let service = uuids, browse = uuids + 1, l2cap = uuids + 2, rfcomm = uuids + 3
        var bytes = BluetoothDiscovery.serviceUUID
        sdp_uuid128_create(service, &bytes)
        sdp_uuid16_create(browse, UInt16(PUBLIC_BROWSE_GROUP))
        sdp_uuid16_create(l2cap, UInt16(L2CAP_UUID))
        sdp_uuid16_create(rfcomm, UInt16(RFCOMM_UUID))
        var ch = channel
        let classes = sdp_list_append(nil, service)
        sdp_set_service_classes(r, classes)
        sdp_set_service_id(r, service.pointee)
        let groups = sdp_list_append(nil, browse)
        sdp_set_browse_groups(r, groups)
        let channelData = sdp_data_alloc(UInt8(SDP_UINT8), &ch)   // copies the value
        let l2capProto = sdp_list_append(nil, l2cap)
        var rfcommProto = sdp_list_append(nil, rfcomm)
        rfcommProto = sdp_list_append(rfcommProto, channelData)
        var protoList = sdp_list_append(nil, l2capProto)
        protoList = sdp_list_append(protoList, rfcommProto)
        let access = sdp_list_append(nil, protoList)
        sdp_set_access_protos(r, access)
        sdp_set_info_attr(r, name, "bendsynth", "bendsynth instrument (docs/PROTOCOL.md)")
        let rc = sdp_record_register(s, r, 0)
        let e = errno
        sdp_data_free(channelData)
        for l in [classes, groups, l2capProto, rfcommProto, protoList, access] { sdp_list_free(l, nil) }
        guard rc == 0 else {
            sdp_record_free(r); sdp_close(s)
            errno = e
            throw PeerError.system(SystemError(call: "sdp_record_register(bendsynth service, channel \(channel))"))
        }
        session = s
        record = r
    }

    deinit {
        sdp_record_unregister(session, record)   // frees the record
        sdp_close(session)
    }
}
