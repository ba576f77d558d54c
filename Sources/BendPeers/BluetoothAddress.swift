/// Bluetooth device addresses (`XX:XX:XX:XX:XX:XX`) and why Bluetooth cannot be used.
public enum BluetoothAddress {
    /// True for six colon-separated hex bytes.
    public static func looksLike(_ s: String) -> Bool {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && UInt8($0, radix: 16) != nil }
    }

    /// "no Bluetooth adapter (…)" — the RFCOMM transport is not built yet, so this says
    /// so until it is.
    public static func unavailableReason() -> String {
        "no Bluetooth adapter (Bluetooth RFCOMM is not supported by this build)"
    }
}
