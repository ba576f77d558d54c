import BendPeers
import Foundation
import Glibc
import BendSystem

/// `bendsynth peers`: instruments nearby — on the LAN by their UDP announcements
/// (docs/PROTOCOL.md, "Discovery"), and a one-line note about Bluetooth.
enum PeersCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("seconds", value: "S", help: "how long to listen for announcements (1…30, default 3)"),
        OptionSpec("bluetooth", help: "search in Bluetooth range too, through bluetoothd (exit 1 with the reason when Bluetooth cannot be used)"),
        OptionSpec("help", "h", help: "show this help"),
    ]

    static let usage = """
    usage: bendsynth peers [--seconds S] [--bluetooth]

    Lists the instruments (bendsynth play --listen) that announce themselves on this
    machine or the LAN (UDP announcements, and DNS-SD _bendsynth._tcp where avahi-daemon
    runs), one line each, tab-separated: HOST:PORT (more, comma-separated, when the
    same instrument is heard on several addresses), key or open, its instance id, its
    name (controls written out as \\xNN). Names that several instruments share are noted.
    With --bluetooth, also those in Bluetooth range (through bluetoothd): ADDRESS, signal
    strength, whether paired, and name; `bendsynth remote ADDRESS` plays one.

    """

    static func run(_ arguments: [String]) throws {
        let (parsed, operands) = try parse(arguments, specs: specs + ConfigFile.specs)
        var seconds = 3, bluetooth = false
        for (name, value) in parsed {
            switch name {
            case "help":
                print(CommandTable.help("peers"))
                return
            case "seconds": seconds = try OptionValues.integer(value, option: name, in: 1...30)
            case "bluetooth": bluetooth = true
            default: break
            }
        }
        guard operands.isEmpty else { throw AppError.usage("peers: unexpected argument '\(operands[0])'") }
        if bluetooth {
            let devices: [BluetoothDiscovery.Found]
            do { devices = try BluetoothDiscovery.search(seconds: Double(seconds)) } catch {
                throw AppError.runtime("peers: \(error)")
            }
            print("Bluetooth: \(devices.count) instrument\(devices.count == 1 ? "" : "s") found")
            for d in devices {
                print("\(d.address)\tbluetooth\t\(d.rssi.map { "\($0) dBm" } ?? "-")\t\(d.paired ? "paired" : "not paired")\t\(UntrustedText.escaped(d.name))")
            }
        } else {
            print("Bluetooth: not searched (add --bluetooth)")
        }
        let found: [PeerAnnouncement], dnsSD: String
        do { (found, dnsSD) = try discoverInstrumentsEverywhere(seconds: Double(seconds)) } catch {
            throw AppError.runtime("peers: cannot listen for announcements on UDP port \(PeerAnnouncement.port): \(error)")
        }
        print("DNS-SD: \(dnsSD)")
        if found.isEmpty { print("LAN: no instruments heard in \(seconds) s") }
        for line in lines(found) { print(line) }
    }

    /// The lines `peers` prints for the instruments found: one per instrument, then a
    /// note for each name that several instruments share.
    static func lines(_ found: [PeerAnnouncement]) -> [String] {
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
