// SPDX-License-Identifier: GPL-3.0-or-later
import CAvahi
import Glibc

/// Publishes one instrument as `_bendsynth._tcp` through a running avahi-daemon while it
/// lives (docs/PROTOCOL.md, "Discovery"). On a name conflict Avahi's alternative name
/// ("name #2") is taken. If the daemon goes away later the record is gone with it (the
/// client does not reconnect; the UDP announcement goes on).
/// - Thread: init/stop from setup; Avahi's callbacks run on its poll thread.
public final class AvahiPublisher: @unchecked Sendable {
    private var connection: AvahiConnection?
    /// Only the poll thread (or `init`, before the poll starts) touches these.
    private var name: String
    private let port: UInt16
    private let txt: [String]
    private var group: OpaquePointer?

    /// The instance name published (after a conflict: Avahi's alternative).
    public var publishedName: String {
        guard let connection else { return name }
        avahi_threaded_poll_lock(connection.poll); defer { avahi_threaded_poll_unlock(connection.poll) }
        return name
    }

    /// - Throws: `AvahiDiscovery.Unavailable` at once when no avahi-daemon answers.
    public init(_ announcement: PeerAnnouncement) throws {
        name = announcement.name
        port = announcement.tcpPort
        txt = AvahiDiscovery.txt(authRequired: announcement.authRequired, instance: announcement.instance)
        connection = try AvahiConnection(context: Unmanaged.passUnretained(self).toOpaque(), callback: AvahiPublisher.clientChanged)
    }

    /// Withdraws the service (freeing the client withdraws it from the daemon).
    public func stop() {
        connection?.close()
        connection = nil
        group = nil
    }

    deinit { stop() }

    private static let clientChanged: AvahiClientCallback = { client, state, context in
        guard let client, let context else { return }
        let me = Unmanaged<AvahiPublisher>.fromOpaque(context).takeUnretainedValue()
        switch state {
        case AVAHI_CLIENT_S_RUNNING: me.publish(client)
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING: if let g = me.group { avahi_entry_group_reset(g) }
        case AVAHI_CLIENT_FAILURE: me.group = nil   // the daemon went away; freed with the client
        default: break
        }
    }

    private static let groupChanged: AvahiEntryGroupCallback = { group, state, context in
        guard state == AVAHI_ENTRY_GROUP_COLLISION, let group, let context,
              let client = avahi_entry_group_get_client(group) else { return }
        let me = Unmanaged<AvahiPublisher>.fromOpaque(context).takeUnretainedValue()
        me.rename()
        me.publish(client)
    }

    private func rename() {
        guard let alt = avahi_alternative_service_name(name) else { return }
        name = String(cString: alt)
        avahi_free(alt)
    }

    /// Adds the service to the (new or reset) entry group and commits it; on a local
    /// name collision renames and tries again (up to 10 names). Failures are dropped:
    /// the UDP announcement still goes.
    private func publish(_ client: OpaquePointer) {
        if group == nil { group = avahi_entry_group_new(client, AvahiPublisher.groupChanged, Unmanaged.passUnretained(self).toOpaque()) }
        guard let group else { return }
        if avahi_entry_group_is_empty(group) == 0 { avahi_entry_group_reset(group) }
        var list: UnsafeMutablePointer<AvahiStringList>? = nil
        for t in txt { list = avahi_string_list_add(list, t) }
        defer { avahi_string_list_free(list) }
        for _ in 0..<10 {
            let rc = avahi_entry_group_add_service_strlst(group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_INET),
                                                           AvahiPublishFlags(0), name, AvahiDiscovery.serviceType, nil, nil, port, list)
            if rc == AVAHI_ERR_COLLISION { rename(); continue }
            if rc == 0 { avahi_entry_group_commit(group) }
            return
        }
    }
}
