// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CAvahi
import Glibc
import Synchronization

/// DNS-SD discovery through a running avahi-daemon (over D-Bus): an instrument publishes
/// `_bendsynth._tcp` (instance name = its display name, its TCP port, TXT `v=1`,
/// `key=required|open` and `id=<instance, 16 hex digits>`); `peers` browses and resolves it (docs/PROTOCOL.md, "Discovery").
/// Where no avahi-daemon is reachable every entry point fails at once (no waiting), and
/// the UDP announcement is the only discovery.
public enum AvahiDiscovery {
    /// The DNS-SD service type.
    public static let serviceType = "_bendsynth._tcp"

    /// Why Avahi cannot be used here (its error text, e.g. "Daemon not running").
    public struct Unavailable: Error, CustomStringConvertible, Sendable {
        public var reason: String
        public var description: String { "avahi-daemon not reachable (\(reason))" }
    }

    /// The TXT strings an instrument publishes.
    public static func txt(authRequired: Bool, instance: UInt64? = nil) -> [String] {
        ["v=1", "key=\(authRequired ? "required" : "open")"] + (instance.map { ["id=\(PeerAnnouncement.hex($0))"] } ?? [])
    }

    /// Browses `_bendsynth._tcp` on IPv4 for `seconds` and resolves each instance found.
    /// Returns the instruments resolved (host = IPv4 address, name = instance name,
    /// `authRequired` from TXT `key`; an instance without `key=open` counts as requiring it).
    /// - Throws: `Unavailable` at once when no avahi-daemon answers.
    /// - Thread: any (blocks `seconds`).
    public static func browse(seconds: Double) throws -> [PeerAnnouncement] {
        let browser = try AvahiBrowser()
        // Browsing for a fixed time (DNS-SD has no "that was all"): Avahi's own poll
        // thread collects; this thread waits out a Wakeup deadline nothing signals.
        let nanos = UInt64(max(0, min(seconds, 4000)) * 1e9)
        _ = Wakeup.recheck("avahi browse", until: { false }, every: nanos, deadline: MonotonicClock.nanos() + nanos)
        return browser.finish()
    }

    static func errorText(_ code: Int32) -> String { String(cString: avahi_strerror(code)) }
}

/// A threaded Avahi poll and a client connected to the daemon. Freed in `close()`.
final class AvahiConnection {
    let poll: OpaquePointer
    private(set) var client: OpaquePointer?

    /// - Throws: `AvahiDiscovery.Unavailable` when the poll or the client cannot be made.
    init(context: UnsafeMutableRawPointer, callback: AvahiClientCallback) throws {
        guard let poll = avahi_threaded_poll_new() else { throw AvahiDiscovery.Unavailable(reason: "cannot make a poll") }
        self.poll = poll
        var error: Int32 = 0
        guard let client = avahi_client_new(avahi_threaded_poll_get(poll), AvahiClientFlags(0), callback, context, &error) else {
            avahi_threaded_poll_free(poll)
            throw AvahiDiscovery.Unavailable(reason: AvahiDiscovery.errorText(error))
        }
        self.client = client
        guard avahi_threaded_poll_start(poll) >= 0 else {
            avahi_client_free(client); avahi_threaded_poll_free(poll)
            throw AvahiDiscovery.Unavailable(reason: "cannot start the poll thread")
        }
    }

    /// Stops the poll thread (callbacks end), then frees the client (and its browsers,
    /// resolvers and entry groups) and the poll. Not from a callback.
    func close() {
        guard let client else { return }
        avahi_threaded_poll_stop(poll)
        avahi_client_free(client)
        avahi_threaded_poll_free(poll)
        self.client = nil
    }
}

/// Browses and resolves `_bendsynth._tcp` until `finish()`.
public final class AvahiBrowser: @unchecked Sendable {
    private let found = Mutex<[PeerAnnouncement]>([])
    private var connection: AvahiConnection?

    /// Starts browsing at once. - Throws: `AvahiDiscovery.Unavailable` when no avahi-daemon answers.
    public init() throws {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let connection = try AvahiConnection(context: context, callback: { _, _, _ in })
        self.connection = connection
        avahi_threaded_poll_lock(connection.poll)
        let browser = avahi_service_browser_new(connection.client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_INET),
                                                AvahiDiscovery.serviceType, nil, AvahiLookupFlags(0), AvahiBrowser.browsed, context)
        let error = avahi_client_errno(connection.client)
        avahi_threaded_poll_unlock(connection.poll)
        if browser == nil {
            connection.close()
            self.connection = nil
            throw AvahiDiscovery.Unavailable(reason: "cannot browse: \(AvahiDiscovery.errorText(error))")
        }
    }

    /// Stops browsing; the instruments resolved so far, in the order resolved.
    public func finish() -> [PeerAnnouncement] {
        connection?.close()
        connection = nil
        return found.withLock { $0 }
    }

    deinit { connection?.close() }

    func add(_ a: PeerAnnouncement) {
        found.withLock { list in
            _ = PeerAnnouncement.merge(a, into: &list)
        }
    }

    private static let browsed: AvahiServiceBrowserCallback = { b, interface, proto, event, name, type, domain, _, context in
        guard event == AVAHI_BROWSER_NEW, let b, let client = avahi_service_browser_get_client(b) else { return }
        _ = avahi_service_resolver_new(client, interface, proto, name, type, domain, AvahiProtocol(AVAHI_PROTO_INET),
                                       AvahiLookupFlags(0), AvahiBrowser.resolved, context)
    }

    private static let resolved: AvahiServiceResolverCallback = { r, _, _, event, name, _, _, _, address, port, txt, _, context in
        defer { if let r { avahi_service_resolver_free(r) } }
        guard event == AVAHI_RESOLVER_FOUND, let context, let name, let address else { return }
        var text = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
        avahi_address_snprint(&text, text.count, address)
        var entries: [String: String] = [:]
        var node = txt
        while let n = node {
            let bytes = UnsafeBufferPointer(start: avahi_string_list_get_text(n), count: avahi_string_list_get_size(n))
            let s = String(decoding: bytes, as: UTF8.self)
            if let eq = s.firstIndex(of: "=") { entries[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            node = avahi_string_list_get_next(n)
        }
        let instance = entries["id"].flatMap { $0.utf8.count == 16 ? UInt64($0, radix: 16) : nil }
        let a = PeerAnnouncement(tcpPort: port, authRequired: entries["key"] != "open", name: String(cString: name), instance: instance,
                                 host: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        Unmanaged<AvahiBrowser>.fromOpaque(context).takeUnretainedValue().add(a)
    }
}

/// Listens to the UDP announcements for `seconds` and, where avahi-daemon runs, browses
/// DNS-SD at the same time; merges both (UDP first; a DNS-SD instance of an instrument
/// already heard — the same instance id, or without one the same `host:port` — adds
/// its address to that entry). `dnsSD` says whether DNS-SD was searched
/// ("searched") or why not ("not used: avahi-daemon not reachable (…)").
/// - Throws: `PeerError.system` when the UDP discovery port cannot be bound.
/// - Thread: any (blocks `seconds`).
public func discoverInstrumentsEverywhere(seconds: Double, port: UInt16 = PeerAnnouncement.port) throws -> (instruments: [PeerAnnouncement], dnsSD: String) {
    let browser: AvahiBrowser?, note: String
    do { browser = try AvahiBrowser(); note = "searched" } catch { browser = nil; note = "not used: \(error)" }
    var found = try discoverInstruments(seconds: seconds, port: port)
    for a in browser?.finish() ?? [] { PeerAnnouncement.merge(a, into: &found) }
    return (found, note)
}
