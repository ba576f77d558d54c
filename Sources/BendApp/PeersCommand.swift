// SPDX-License-Identifier: GPL-3.0-or-later
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
        let (parsed, operands) = try OptionParser.parse(arguments, specs: specs + CommandTable.configSpecs)
        var seconds = 3, bluetooth = false
        for (name, value) in parsed {
            switch name {
            case "help":
                print(CommandTable.help("peers"))
                return
            case "seconds": seconds = try OptionValue.integer(value, option: name, in: 1...30)
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
        for line in PeerAnnouncement.listing(found) { print(line) }
    }
}
