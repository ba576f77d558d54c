// SPDX-License-Identifier: GPL-3.0-or-later
import BendDBus
import BendSystem
import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Glibc
import Synchronization

/// The instrument's side of Bluetooth through BlueZ 5's D-Bus API, as a normal user:
/// registers the bendsynth profile (`ProfileManager1.RegisterProfile`: service UUID,
/// RFCOMM channel, name, role server — bluetoothd publishes the SDP record and listens on
/// the channel) and takes the connections bluetoothd hands over (`Profile1.NewConnection`:
/// a connected RFCOMM socket). With `agent`, pairing requests are answered too
/// (`BluetoothAgent`). Its own D-Bus connection runs on its own event loop.
///
/// Connections wait in a queue and ring a doorbell socket the peer session watches as
/// its listener (`BluetoothProfileTransport`).
public final class BluetoothProfile: @unchecked Sendable {
    /// The bendsynth service class UUID (docs/PROTOCOL.md).
    public static let serviceUUID = "6a0b2f1e-7c4d-4b8e-9f3a-b3e5d1c20847"
    static let objectPath = "/org/bendsynth/profile"

    public let channel: UInt8
    public let name: String
    /// Answers pairing and service authorization requests; nil: another agent does.
    public let agent: BluetoothAgent?
    /// Setup and D-Bus lines (a refused agent, bluetoothd releasing the profile).
    public var log: @Sendable (String) -> Void = { _ in }

    private var bus: DBusConnection?
    private var loop: EventLoop?
    private var doorbell: (read: Socket, write: Socket)?
    /// Connections handed over and not yet taken by `accept`.
    private let pending = Mutex<[(socket: Socket, remote: String)]>([])
    /// For `RequestDisconnection` and `ended`: a duplicate of every live connection's
    /// descriptor by device address. - Thread: the loop's.
    private var live: [String: [Int32]] = [:]

    public init(channel: UInt8, name: String, agent: BluetoothAgent?) {
        self.channel = channel
        self.name = name
        self.agent = agent
    }

    deinit { stop() }

    /// Registers the profile (and the agent) and starts taking connections. Returns the
    /// doorbell: readable while a connection waits for `accept`.
    /// - Throws: `BluetoothUnavailable` (no bus, no bluetoothd, no adapter, powered off,
    ///   blocked, or RegisterProfile refused).
    /// - Thread: setup, once.
    func register() throws(BluetoothUnavailable) -> Socket {
        let (bus, _) = try BlueZ.open()
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            bus.close()
            throw .failed(SystemError(call: "socketpair(doorbell)").description)
        }
        doorbell = (Socket(fd: fds[0]), Socket(fd: fds[1]))
        do {
            try bus.export(path: Self.objectPath) { [unowned self, unowned bus] m in handle(m, bus) }
            try bus.call(BlueZ.service, "/org/bluez", "org.bluez.ProfileManager1", "RegisterProfile", [
                .objectPath(Self.objectPath), .string(Self.serviceUUID),
                .properties([("Name", .string(name)), ("Role", .string("server")), ("Channel", .uint16(UInt16(channel))),
                             ("RequireAuthentication", .bool(true)), ("RequireAuthorization", .bool(false)),
                             ("AutoConnect", .bool(false))]),
            ])
        } catch {
            bus.close()
            closeDoorbell()
            if error.name == "org.bluez.Error.AlreadyExists" { throw .failed("another program has registered the bendsynth profile (\(error.message))") }
            throw error.serviceMissing ? .notRunning : .failed("cannot register the bendsynth profile: \(error)")
        }
        if let agent {
            do { try agent.register(on: bus) } catch { log("note: pairing requests go to another agent: \(error)") }
        }
        do {
            let loop = try EventLoop(name: "bendsynth bluez")
            bus.onDisconnect = { [unowned self] e in log("lost the system D-Bus (\(e.message)): no new Bluetooth players") }
            bus.attach(to: loop)
            try loop.start()
            self.loop = loop
        } catch {
            bus.close()
            closeDoorbell()
            throw .failed(error.description)
        }
        self.bus = bus
        return doorbell!.read
    }

    /// Unregisters the profile and the agent, ends the loop, closes what is left.
    /// - Thread: any but the loop's.
    public func stop() {
        if let bus, let loop {
            bus.perform { [self] bus in
                _ = try? bus.call(BlueZ.service, "/org/bluez", "org.bluez.ProfileManager1", "UnregisterProfile", [.objectPath(Self.objectPath)], timeout: 1)
                agent?.unregister(on: bus)
                for fd in live.values.joined() { close(fd) }
                live.removeAll()
                bus.close()
            }
            loop.stop()
        }
        bus = nil
        loop = nil
        for c in pending.withLock({ p in defer { p.removeAll() }; return p }) { c.socket.close() }
        doorbell.map { $0.write.close() }   // the read end is the session's listener: it closes it
        doorbell = nil
    }

    private func closeDoorbell() {
        doorbell?.read.close()
        doorbell?.write.close()
        doorbell = nil
    }

    /// The next connection bluetoothd handed over, or nil. - Thread: the session's.
    func accept(_ listener: Socket) -> (socket: Socket, remote: String)? {
        var byte: UInt8 = 0
        _ = recv(listener.fd, &byte, 1, Int32(MSG_DONTWAIT))
        return pending.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }

    /// The session let go of the connection from `address`: drop our duplicates so the
    /// link closes. - Thread: any.
    public func ended(_ address: String) {
        bus?.perform { [self] _ in for fd in live.removeValue(forKey: address) ?? [] { close(fd) } }
    }

    /// Profile1 calls. - Thread: the loop's.
    private func handle(_ m: DBusMessage, _ bus: DBusConnection) -> Bool {
        guard m.interface == "org.bluez.Profile1" else { return false }
        let args = m.arguments()
        switch m.member {
        case "NewConnection":
            guard args.count >= 2, let device = args[0].string, case .fd(let fd) = args[1] else {
                bus.replyError(to: m, name: "org.bluez.Error.InvalidArguments", "expected (o device, h fd, a{sv} properties)")
                return true
            }
            let own = fd, mine = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1   // `fd` is ours (DBusMessage dups it)
            guard own >= 0, mine >= 0 else {
                if own >= 0 { close(own) }
                bus.replyError(to: m, name: "org.bluez.Error.Rejected", "out of file descriptors")
                return true
            }
            bus.reply(to: m)
            let address = BlueZ.address(ofDevice: device)
            let socket = Socket(fd: own)
            try? socket.setNonBlocking(false)
            live[address, default: []].append(mine)
            pending.withLock { $0.append((socket, address)) }
            var one: UInt8 = 1
            if let doorbell { _ = send(doorbell.write.fd, &one, 1, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        case "RequestDisconnection":
            // bluetoothd asks us to let go (the device is being disconnected): shut the
            // link so the session sees it end and releases its touches.
            let address = BlueZ.address(ofDevice: args.first?.string ?? "")
            for fd in live.removeValue(forKey: address) ?? [] { shutdown(fd, Int32(SHUT_RDWR)); close(fd) }
            bus.reply(to: m)
        case "Release":
            log("bluetoothd released the bendsynth profile: no new Bluetooth players")
            bus.reply(to: m)
        default:
            return false
        }
        return true
    }
}
