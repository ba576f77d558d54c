import BendPeers

/// What `bendsynth remote TARGET` names: a TCP address, a Bluetooth address, or an
/// instrument's display name as `bendsynth peers` lists it.
enum RemoteTarget: Equatable {
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
    static func classify(_ text: String) -> RemoteTarget {
        if BluetoothAddress.looksLike(text) { return .bluetooth(text) }
        if !text.isEmpty, text.allSatisfy(\.isNumber) { return .tcp(":" + text) }
        if text.contains(":") { return .tcp(text) }
        if !text.contains(where: \.isWhitespace), (try? PeerAddress.parse(text)) != nil { return .tcp(text) }
        return .name(text)
    }

    /// Turns a `.name` into the `.tcp` address of the one instrument announcing it (its
    /// loopback address when it is heard there too), listening up to `seconds`.
    /// - Throws: `AppError.runtime` when no instrument of that name is heard (or the
    ///   discovery port cannot be bound); `AppError.usage` when several share the name.
    /// - Thread: control (blocks up to `seconds`).
    func resolved(seconds: Double, port: UInt16 = PeerAnnouncement.port) throws -> RemoteTarget {
        guard case .name(let name) = self else { return self }
        let found: [PeerAnnouncement]
        do { found = try findInstruments(named: name, seconds: seconds, port: port) } catch {
            throw AppError.runtime("remote: cannot listen for announcements on UDP port \(port) to find '\(name)': \(error)")
        }
        switch found.count {
        case 0:
            throw AppError.runtime("remote: no instrument named '\(name)' heard within \(Int(seconds)) s and no host of that name (bendsynth peers lists the instruments heard)")
        case 1:
            return .tcp("\(found[0].host):\(found[0].tcpPort)")
        default:
            // Told apart by instance id: one instrument heard on several addresses is one
            // entry; these are different instruments (one may be a forgery).
            throw AppError.usage("remote: \(found.count) instruments are named '\(name)' (\(PeersCommand.clashList(found))); give HOST:PORT")
        }
    }
}
