// SPDX-License-Identifier: GPL-3.0-or-later
import BendDBus

/// A BlueZ pairing agent (`org.bluez.Agent1`, capability DisplayYesNo): pairing requests
/// (numeric comparison, "Just Works" authorization) and service authorizations for this
/// instrument are decided like invitations — `--accept-all` and `--allow` addresses at
/// once, others asked at the pad (`asker`), declined without one. PIN and passkey entry
/// are declined: there is nothing to type them on.
/// - Thread: `handle` on the profile's loop; `answer` from any thread.
public final class BluetoothAgent: @unchecked Sendable {
    static let objectPath = "/org/bendsynth/agent"
    /// Pairing questions carry ids with this bit, so answers can be told from invitations'.
    static let pairingBit: UInt64 = 1 << 63

    public let admission: BluetoothAdmission
    public let asker: (any InvitationAsker)?
    /// Lines for the player (a passkey to compare, a request declined).
    public var notice: @Sendable (String) -> Void = { _ in }
    private var bus: DBusConnection?
    /// Requests waiting for the player, by question id. - Thread: the loop's.
    private var waiting: [UInt64: DBusMessage] = [:]
    private var nextID: UInt64 = 1

    public init(admission: BluetoothAdmission, asker: (any InvitationAsker)?) {
        var admission = admission
        admission.askPlayer = asker != nil
        self.admission = admission
        self.asker = asker
    }

    /// True for the id of a pairing question (`answer` takes it), false for an invitation's.
    public static func isPairing(_ id: PeerID) -> Bool { id.value & pairingBit != 0 }

    /// `AgentManager1.RegisterAgent` and `RequestDefaultAgent`.
    func register(on bus: DBusConnection) throws(DBusError) {
        self.bus = bus
        try bus.export(path: Self.objectPath) { [unowned self, unowned bus] m in
            m.interface == "org.bluez.Agent1" ? handle(m, bus) : false
        }
        try bus.call(BlueZ.service, "/org/bluez", "org.bluez.AgentManager1", "RegisterAgent", [.objectPath(Self.objectPath), .string("DisplayYesNo")])
        try bus.call(BlueZ.service, "/org/bluez", "org.bluez.AgentManager1", "RequestDefaultAgent", [.objectPath(Self.objectPath)])
    }

    func unregister(on bus: DBusConnection) {
        _ = try? bus.call(BlueZ.service, "/org/bluez", "org.bluez.AgentManager1", "UnregisterAgent", [.objectPath(Self.objectPath)], timeout: 1)
        self.bus = nil
    }

    /// An Agent1 call. - Thread: the loop's.
    func handle(_ m: DBusMessage, _ bus: DBusConnection) -> Bool {
        let args = m.arguments()
        let address = BlueZ.address(ofDevice: args.first?.string ?? "")
        switch m.member {
        case "RequestConfirmation":
            let passkey = String(args.count > 1 ? args[1].integer ?? 0 : 0)
            decide(m, bus, address: address, question: "pairing, passkey \(String(repeating: "0", count: max(0, 6 - passkey.count)) + passkey)")
        case "RequestAuthorization":
            decide(m, bus, address: address, question: "pairing")
        case "AuthorizeService":
            decide(m, bus, address: address, question: "bendsynth service")
        case "RequestPinCode", "RequestPasskey":
            notice("Bluetooth: \(address) asks for a PIN or passkey to type: declined (pair from the other device, or with bluetoothctl)")
            bus.replyError(to: m, name: "org.bluez.Error.Rejected", "bendsynth cannot enter a PIN or passkey")
        case "DisplayPasskey", "DisplayPinCode":
            notice("Bluetooth: pairing with \(address): the code is \(args.count > 1 ? args[1].description : "?")")
            bus.reply(to: m)
        case "Cancel":
            for (id, _) in waiting { asker?.withdraw(PeerID(id)) }
            waiting.removeAll()
            bus.reply(to: m)
        case "Release":
            self.bus = nil
            bus.reply(to: m)
        default:
            return false
        }
        return true
    }

    private func decide(_ m: DBusMessage, _ bus: DBusConnection, address: String, question: String) {
        let id = Self.pairingBit | nextID
        nextID += 1
        let peer = PeerInfo(id: PeerID(id), name: question, address: address)
        switch admission.decide(peer) {
        case .accept:
            bus.reply(to: m)
        case .decline(let why):
            notice("Bluetooth: \(question) from \(address) declined")
            bus.replyError(to: m, name: "org.bluez.Error.Rejected", why)
        case .ask:
            waiting[id] = m
            asker?.offer(peer)
        }
    }

    /// The player's answer to pairing question `id`. - Thread: any.
    public func answer(_ id: PeerID, _ decision: InvitationDecision) {
        bus?.perform { [self] bus in
            guard let m = waiting.removeValue(forKey: id.value) else { return }
            if case .decline(let why) = decision { bus.replyError(to: m, name: "org.bluez.Error.Rejected", why) } else { bus.reply(to: m) }
        }
    }
}
