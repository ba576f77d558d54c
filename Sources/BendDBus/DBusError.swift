// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A failed D-Bus call: the error name the peer (or sd-bus) gave and its message, or a
/// local failure with its errno; `call` names what was being done.
public struct DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// "org.freedesktop.DBus.Error.ServiceUnknown", "org.bluez.Error.Blocked", … ("" for a
    /// local failure without a D-Bus error name).
    public var name: String
    public var message: String
    /// What failed: "org.bluez.ProfileManager1.RegisterProfile", "sd_bus_open_system".
    public var call: String

    public init(name: String, message: String, call: String) {
        self.name = name
        self.message = message
        self.call = call
    }

    /// From a negative errno an sd-bus function returned.
    init(call: String, errno code: Int32) {
        self.init(name: "", message: String(cString: strerror(code)), call: call)
    }

    /// `sd_bus_open_system` found no bus, or the service is not on it.
    public var serviceMissing: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }

    public var description: String {
        let what = name.isEmpty ? message : message.isEmpty ? name : "\(name): \(message)"
        return "\(call): \(what)"
    }
}
