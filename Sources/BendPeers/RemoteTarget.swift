// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem

/// What `bendsynth remote TARGET` names: a TCP address, a Bluetooth address, or an
/// instrument's display name as `bendsynth peers` lists it.
public enum RemoteTarget: Equatable, Sendable {
    /// `HOST[:PORT]` or `:PORT` for the TCP transport.
    case tcp(String)
    /// `XX:XX:XX:XX:XX:XX[@CHANNEL]` for RFCOMM.
    case bluetooth(String)
    /// A display name to look up among the instruments' UDP announcements.
    case name(String)

    /// Sorts TARGET without touching the network except for a host name lookup:
    /// a Bluetooth address; a bare number (a port on this machine); anything with ':'
    /// or a dotted IPv4 address; a single word that resolves as a host name; otherwise
    /// (spaces, or no such host) a display name.
    public static func classify(_ text: String) -> RemoteTarget {
        if BluetoothAddress.looksLike(text) { return .bluetooth(text) }
        if !text.isEmpty, text.allSatisfy(\.isNumber) { return .tcp(":" + text) }
        if text.contains(":") { return .tcp(text) }
        if !text.contains(where: \.isWhitespace), (try? PeerAddress.parse(text)) != nil { return .tcp(text) }
        return .name(text)
    }

    /// Turns a `.name` into the `.tcp` address of the one instrument announcing it (its
    /// loopback address when it is heard there too), listening up to `seconds`.
    /// - Throws: `InstrumentError(.runtime)` when no instrument of that name is heard (or
    ///   the discovery port cannot be bound); `UsageError` when several share the name.
    /// - Thread: control (blocks up to `seconds`).
    public func resolved(seconds: Double, port: UInt16 = PeerAnnouncement.port) throws -> RemoteTarget {
        guard case .name(let name) = self else { return self }
        let found: [PeerAnnouncement]
        do { found = try findInstruments(named: name, seconds: seconds, port: port) } catch {
            throw InstrumentError(.runtime, "remote: cannot listen for announcements on UDP port \(port) to find '\(name)': \(error)")
        }
        switch found.count {
        case 0:
            throw InstrumentError(.runtime, "remote: no instrument named '\(name)' heard within \(Int(seconds)) s and no host of that name (bendsynth peers lists the instruments heard)")
        case 1:
            return .tcp("\(found[0].host):\(found[0].tcpPort)")
        default:
            // Told apart by instance id: one instrument heard on several addresses is one
            // entry; these are different instruments (one may be a forgery).
            throw UsageError("remote: \(found.count) instruments are named '\(name)' (\(PeerAnnouncement.clashList(found))); give HOST:PORT")
        }
    }
}

extension PeerAnnouncement {
    /// The lines `peers` prints for the instruments found, tab-separated: HOST:PORT (more,
    /// comma-separated, when one is heard on several addresses), key or open, its
    /// instance id, its name (controls written out); then a note for each name that
    /// several instruments share.
    public static func listing(_ found: [PeerAnnouncement]) -> [String] {
        var out = found.map { a in
            let addresses = ([a.host] + a.alsoAt).map { "\($0):\(a.tcpPort)" }.joined(separator: ",")
            return "\(addresses)\t\(a.authRequired ? "key" : "open")\t\(a.instanceText)\t\(UntrustedText.escaped(a.name))"
        }
        var seen: [String] = []
        for a in found where !seen.contains(a.name) {
            seen.append(a.name)
            let same = found.filter { $0.name == a.name }
            guard same.count > 1 else { continue }
            out.append("note: \(same.count) instruments are named '\(UntrustedText.escaped(a.name))' (\(clashList(same))); remote NAME refuses it, give HOST:PORT")
        }
        return out
    }

    /// "id … at HOST:PORT" for each of `same`, separated by "; ".
    static func clashList(_ same: [PeerAnnouncement]) -> String {
        same.map { "id \($0.instanceText) at \($0.host):\($0.tcpPort)" }.sorted { $0.split(separator: " ").last! < $1.split(separator: " ").last! }
            .joined(separator: "; ")
    }
}
