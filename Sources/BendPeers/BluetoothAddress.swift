/// Bluetooth device addresses (`XX:XX:XX:XX:XX:XX`) and why Bluetooth cannot be used.
public enum BluetoothAddress {
    /// True for six colon-separated hex bytes (optionally `@CHANNEL` after them).
    public static func looksLike(_ s: String) -> Bool {
        let host = s.split(separator: "@", maxSplits: 1).first.map(String.init) ?? s
        let parts = host.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && UInt8($0, radix: 16) != nil }
    }

    /// "no Bluetooth adapter (…)" when Bluetooth cannot be used here, else nil.
    public static func unavailableReason() -> String? {
        RFCOMMTransport.unavailableReason().map { "no Bluetooth adapter (\($0))" }
    }
}
