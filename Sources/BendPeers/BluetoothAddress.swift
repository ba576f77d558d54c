// SPDX-License-Identifier: GPL-3.0-or-later
/// Bluetooth device addresses (`XX:XX:XX:XX:XX:XX`) and why Bluetooth cannot be used.
public enum BluetoothAddress {
    /// True for six colon-separated hex bytes (optionally `@CHANNEL` after them).
    public static func looksLike(_ s: String) -> Bool {
        let host = s.split(separator: "@", maxSplits: 1).first.map(String.init) ?? s
        let parts = host.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && UInt8($0, radix: 16) != nil }
    }

    /// One line saying why Bluetooth cannot be used here ("Bluetooth: no adapter (…)",
    /// "… is powered off", "… blocked by rfkill", "bluetoothd is not running", no system
    /// bus), or nil when bluetoothd has a usable adapter. Asks bluetoothd over D-Bus
    /// (`BlueZ`); `remote` also needs the kernel's RFCOMM sockets (`RFCOMMTransport`).
    public static func unavailableReason() -> String? { BlueZ.unavailableReason() }
}
