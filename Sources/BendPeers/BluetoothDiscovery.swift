// SPDX-License-Identifier: GPL-3.0-or-later
import BendDBus
import BendSystem
import Synchronization

/// `peers --bluetooth`: instruments in range, through BlueZ's D-Bus API as a normal user.
/// Discovery runs on the first usable adapter (`Adapter1.StartDiscovery`) while the
/// devices bluetoothd knows — and those it finds, and the UUIDs they resolve later — are
/// followed through its ObjectManager (`InterfacesAdded`, `PropertiesChanged`). A device
/// is an instrument when its UUIDs include the bendsynth service.
public enum BluetoothDiscovery {
    /// An instrument found over Bluetooth.
    public struct Found: Sendable, Equatable {
        /// `XX:XX:XX:XX:XX:XX`.
        public var address: String
        /// Its Bluetooth name (the alias, else the name; "" when none is known).
        public var name: String
        /// Signal strength in dBm, when it was heard during this search.
        public var rssi: Int?
        public var paired: Bool
    }

    /// Device path → Device1 properties, merged as they arrive.
    final class Devices: @unchecked Sendable {
        let lock = Mutex<[String: [String: DBusValue]]>([:])
        func merge(_ path: String, _ props: [String: DBusValue]) {
            lock.withLock { $0[path, default: [:]].merge(props) { $1 } }
        }
    }

    /// Discovers for `seconds` and returns the devices that offer the bendsynth service,
    /// by address.
    /// - Throws: `BluetoothUnavailable` (no bus, no bluetoothd, no adapter, powered off,
    ///   blocked, discovery refused).
    /// - Thread: any (blocks for `seconds`).
    public static func search(seconds: Double) throws(BluetoothUnavailable) -> [Found] {
        let bus: DBusConnection
        do { bus = try DBusConnection.system() } catch { throw .noBus(error.message) }
        defer { bus.close() }
        let devices = Devices()
        do {
            // Matches first, so nothing that changes between the snapshot and them is lost.
            try bus.match("type='signal',sender='\(BlueZ.service)',interface='\(BlueZ.objectManager)',member='InterfacesAdded'") { m in
                let a = m.arguments()
                guard a.count == 2, let path = a[0].string, let props = a[1].namedEntries?[BlueZ.deviceInterface]?.namedEntries else { return }
                devices.merge(path, props)
            }
            try bus.match("type='signal',sender='\(BlueZ.service)',interface='\(BlueZ.properties)',member='PropertiesChanged',path_namespace='/org/bluez'") { m in
                let a = m.arguments()
                guard a.count >= 2, a[0].string == BlueZ.deviceInterface, let props = a[1].namedEntries else { return }
                devices.merge(m.path, props)
            }
        } catch {
            throw error.serviceMissing ? .notRunning : .failed(error.description)
        }
        let objects = try BlueZ.managedObjects(bus)
        let adapter = try BlueZ.adapter(in: objects)
        for (path, ifaces) in objects where path.hasPrefix(adapter + "/") {
            if let props = ifaces[BlueZ.deviceInterface] { devices.merge(path, props) }
        }
        do { try bus.call(BlueZ.service, adapter, BlueZ.adapterInterface, "StartDiscovery") } catch {
            if error.name == "org.bluez.Error.NotReady" { throw .poweredOff(String(adapter.split(separator: "/").last ?? "")) }
            if error.name != "org.bluez.Error.InProgress" { throw .failed("cannot start discovery: \(error)") }
        }
        do {
            let loop = try EventLoop(name: "bendsynth bt scan")
            bus.attach(to: loop)
            // The scan lasts `seconds` (BlueZ never says "that was all"): a timer on the
            // loop that collects the devices ends it.
            let ended = try Wakeup("bt scan")
            _ = loop.schedule(after: UInt64(max(0, seconds) * 1e9)) { ended.signal() }
            try loop.start()
            ended.wait()
            loop.stop()
            bus.detach()
        } catch {
            throw .failed(error.description)
        }
        _ = try? bus.call(BlueZ.service, adapter, BlueZ.adapterInterface, "StopDiscovery", timeout: 2)
        return found(in: devices.lock.withLock { $0 }, under: adapter)
    }

    /// The instruments among `devices` (of `adapter`), sorted by address.
    static func found(in devices: [String: [String: DBusValue]], under adapter: String) -> [Found] {
        devices.compactMap { path, props -> Found? in
            guard path.hasPrefix(adapter + "/"),
                  (props["UUIDs"]?.stringList ?? []).contains(where: { $0.lowercased() == BluetoothProfile.serviceUUID }) else { return nil }
            return Found(address: props["Address"]?.string ?? BlueZ.address(ofDevice: path),
                         name: props["Alias"]?.string ?? props["Name"]?.string ?? "",
                         rssi: props["RSSI"]?.integer.map { Int($0) },
                         paired: props["Paired"]?.bool ?? false)
        }.sorted { $0.address < $1.address }
    }
}
