// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import BendPeers
import BendSystem

/// Turns option values into typed settings, with errors naming the option and the
/// expected form.
public enum OptionValues {
    /// `--interp`: 'bandlimited' (the band-limited tables, default), 'cubic' or 'linear'.
    public static func interpolation(_ value: String?, option: String) throws -> Interpolation {
        switch value {
        case "bandlimited": return .bandLimited
        case "cubic": return .cubic
        case "linear": return .linear
        default: throw AppError.usage("option '--\(option)': expected 'bandlimited', 'cubic' or 'linear', got '\(value ?? "")'")
        }
    }

    /// The `--interp` name of an interpolation.
    static func name(_ interpolation: Interpolation) -> String {
        switch interpolation {
        case .bandLimited: return "bandlimited"
        case .cubic: return "cubic"
        case .linear: return "linear"
        }
    }

    /// `--name` of `play` and `remote`: 1…64 UTF-8 bytes (the protocol's limit), no
    /// control characters (others would see them escaped).
    static func peerName(_ value: String?, option: String) throws -> String {
        let v = value ?? ""
        guard !v.isEmpty, v.utf8.count <= PeerProtocol.maxNameBytes else {
            throw AppError.usage("option '--\(option)': expected a name of 1…\(PeerProtocol.maxNameBytes) UTF-8 bytes, got \(v.utf8.count) bytes")
        }
        if let bad = v.unicodeScalars.first(where: UntrustedText.needsEscape) {
            throw AppError.usage("option '--\(option)': the name holds the control character U+\(String(bad.value, radix: 16, uppercase: true)); expected printable text")
        }
        return v
    }
}
