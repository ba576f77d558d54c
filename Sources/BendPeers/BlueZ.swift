// SPDX-License-Identifier: GPL-3.0-or-later
import BendDBus
import Glibc

/// BlueZ 5's D-Bus API (bluetoothd on the system bus): names, the object tree, and
/// whether Bluetooth can be used here — one plain line for each reason it cannot.
public enum BlueZ {
    static let service = "org.bluez"
    static let adapterInterface = "org.bluez.Adapter1"
    static let deviceInterface = "org.bluez.Device1"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"

    /// Object path → interface → property → value, as `GetManagedObjects` returns it.
    typealias Objects = [String: [String: [String: DBusValue]]]

    /// bluetoothd's whole object tree.
    /// - Throws: `BluetoothUnavailable` (no bus, bluetoothd not running).
    static func managedObjects(_ bus: DBusConnection) throws(BluetoothUnavailable) -> Objects {
        let reply: [DBusValue]
        do { reply = try bus.call(service, "/", objectManager, "GetManagedObjects") } catch {
            if error.serviceMissing { throw .notRunning }
            throw .failed(error.description)
        }
        var out: Objects = [:]
        for (path, interfaces) in reply.first?.namedEntries ?? [:] {
            var ifaces: [String: [String: DBusValue]] = [:]
            for (name, props) in interfaces.namedEntries ?? [:] { ifaces[name] = props.namedEntries ?? [:] }
            out[path] = ifaces
        }
        return out
    }

    /// The first adapter (lowest path) that is usable.
    /// - Throws: `BluetoothUnavailable`: no adapter, powered off, blocked by rfkill.
    static func adapter(in objects: Objects) throws(BluetoothUnavailable) -> String {
        let adapters = objects.filter { $0.value[adapterInterface] != nil }.keys.sorted()
        guard let path = adapters.first else { throw .noAdapter }
        let props = objects[path]?[adapterInterface] ?? [:]
        let name = String(path.split(separator: "/").last ?? "")
        if props["Powered"]?.bool == false {
            // BlueZ ≥ 5.66 says why in PowerState; older ones only through rfkill.
            if props["PowerState"]?.string == "off-blocked" || rfkillBlocksBluetooth() { throw .blocked(name) }
            throw .poweredOff(name)
        }
        return path
    }

    /// Connects to the system bus and finds a usable adapter.
    /// - Throws: `BluetoothUnavailable` with the reason.
    static func open() throws(BluetoothUnavailable) -> (bus: DBusConnection, adapter: String) {
        let bus: DBusConnection
        do { bus = try DBusConnection.system() } catch { throw .noBus(error.message) }
        do {
            return (bus, try adapter(in: managedObjects(bus)))
        } catch {
            bus.close()
            throw error
        }
    }

    /// Why Bluetooth cannot be used here (one line), or nil when an adapter is ready.
    /// - Thread: any (a few blocking D-Bus calls).
    public static func unavailableReason() -> String? {
        do {
            let (bus, _) = try open()
            bus.close()
            return nil
        } catch {
            return error.description
        }
    }

    /// True when /sys/class/rfkill lists a Bluetooth switch that is soft- or hard-blocked.
    static func rfkillBlocksBluetooth() -> Bool {
        guard let dir = opendir("/sys/class/rfkill") else { return false }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("rfkill") else { continue }
            let base = "/sys/class/rfkill/\(name)/"
            if read(base + "type") == "bluetooth", read(base + "soft") == "1" || read(base + "hard") == "1" { return true }
        }
        return false
    }

    private static func read(_ path: String) -> String? {
        guard let f = fopen(path, "r") else { return nil }
        defer { fclose(f) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, 64, f) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF" → "AA:BB:CC:DD:EE:FF" (the path as given
    /// when it names no device).
    static func address(ofDevice path: String) -> String {
        guard let last = path.split(separator: "/").last, last.hasPrefix("dev_") else { return path }
        return String(last.dropFirst(4).map { $0 == "_" ? ":" : $0 })
    }
}

/// Why Bluetooth cannot be used here: each reason one plain line.
public enum BluetoothUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    /// No system D-Bus to reach (the errno text).
    case noBus(String)
    /// Nobody owns org.bluez on the system bus.
    case notRunning
    case noAdapter
    /// The adapter (hci0) is powered off.
    case poweredOff(String)
    /// The adapter is off because rfkill blocks it.
    case blocked(String)
    /// Another D-Bus failure, as sd-bus or bluetoothd put it.
    case failed(String)

    public var description: String {
        switch self {
        case .noBus(let why): "Bluetooth: cannot reach the system D-Bus (\(why)), where bluetoothd would be"
        case .notRunning: "Bluetooth: bluetoothd is not running (nobody owns org.bluez on the system D-Bus)"
        case .noAdapter: "Bluetooth: no adapter (bluetoothd lists none)"
        case .poweredOff(let a): "Bluetooth: adapter \(a) is powered off (turn it on: bluetoothctl power on)"
        case .blocked(let a): "Bluetooth: adapter \(a) is blocked by rfkill (unblock it: rfkill unblock bluetooth)"
        case .failed(let why): "Bluetooth: \(why)"
        }
    }
}
