// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendPeers
import BendSystem
import Foundation
import Glibc
import XCTest

/// DNS-SD through Avahi: without a daemon everything falls back to the UDP announcement
/// at once; with a private D-Bus + avahi-daemon (on `lo` only) an instrument published
/// is browsed, resolved and merged with the announcements.
final class AvahiDiscoveryTests: XCTestCase {
    /// Runs `body` with libdbus pointed at `address` (the system bus), restoring it after.
    private func withSystemBus<T>(_ address: String, _ body: () throws -> T) rethrows -> T {
        let old = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1)
        defer { if let old { setenv("DBUS_SYSTEM_BUS_ADDRESS", old, 1) } else { unsetenv("DBUS_SYSTEM_BUS_ADDRESS") } }
        return try body()
    }

    func testWithoutADaemonPublishingFailsAtOnceAndPeersStillHearsTheAnnouncement() throws {
        let port: UInt16 = 47_000 + UInt16(getpid() % 500)
        try withSystemBus("unix:path=/nonexistent/bendsynth-no-bus") {
            XCTAssertThrowsError(try AvahiPublisher(PeerAnnouncement(tcpPort: 47_998, authRequired: true, name: "x"))) {
                XCTAssertTrue("\($0)".hasPrefix("avahi-daemon not reachable ("), "\($0)")
            }
            let announcer = try PeerAnnouncer(PeerAnnouncement(tcpPort: 47_997, authRequired: false, name: "udp-only"), broadcast: false, port: port)
            defer { announcer.stop() }
            let start = MonotonicClock.nanos()
            let (found, note) = try discoverInstrumentsEverywhere(seconds: 1.5, port: port)
            let elapsed = Double(MonotonicClock.nanos() - start) / 1e9
            print("AvahiDiscoveryTests: fallback discovery of 1.5 s took \(String(format: "%.3f", elapsed)) s")
            XCTAssertTrue(note.hasPrefix("not used: avahi-daemon not reachable ("), note)
            XCTAssertEqual(found.filter { $0.tcpPort == 47_997 }.map { "\($0.host) \($0.name) \($0.authRequired)" }, ["127.0.0.1 udp-only false"])
        }
    }

    func testPublishedInstrumentIsBrowsedResolvedAndMergedThroughAPrivateDaemon() throws {
        let daemons = try PrivateAvahi.start()
        defer { daemons.stop() }
        let port: UInt16 = 47_500 + UInt16(getpid() % 300)
        try withSystemBus(daemons.busAddress) {
            let keyed = try AvahiPublisher(PeerAnnouncement(tcpPort: 47_991, authRequired: true, name: "dnssd keyed \(getpid())"))
            let open = try AvahiPublisher(PeerAnnouncement(tcpPort: 47_992, authRequired: false, name: "dnssd open \(getpid())"))
            // A second instrument of the same name: Avahi's alternative name ("… #2").
            let twin = try AvahiPublisher(PeerAnnouncement(tcpPort: 47_993, authRequired: true, name: "dnssd keyed \(getpid())"))
            defer { keyed.stop(); open.stop(); twin.stop() }
            // The same instrument also announced over UDP: listed once.
            let announcer = try PeerAnnouncer(PeerAnnouncement(tcpPort: 47_992, authRequired: false, name: "dnssd open \(getpid())"), broadcast: false, port: port)
            defer { announcer.stop() }
            var found: [PeerAnnouncement] = [], note = ""
            XCTAssertTrue(waitFor(10) {
                (found, note) = (try? discoverInstrumentsEverywhere(seconds: 1.5, port: port)) ?? ([], "")
                return [47_991, 47_992, 47_993].allSatisfy { p in found.contains { $0.tcpPort == p } }
            }, "\(found) \(note)\n\(daemons.log())")
            XCTAssertEqual(note, "searched")
            XCTAssertEqual(found.filter { $0.tcpPort == 47_991 }.map { "\($0.host) \($0.name) \($0.authRequired)" }, ["127.0.0.1 dnssd keyed \(getpid()) true"])
            XCTAssertEqual(found.filter { $0.tcpPort == 47_992 }.map { "\($0.host) \($0.name) \($0.authRequired)" }, ["127.0.0.1 dnssd open \(getpid()) false"])
            XCTAssertEqual(twin.publishedName, "dnssd keyed \(getpid()) #2")
            XCTAssertEqual(found.filter { $0.tcpPort == 47_993 }.map(\.name), ["dnssd keyed \(getpid()) #2"])
            // After stop the record is withdrawn.
            keyed.stop()
            XCTAssertTrue(waitFor(10) { !((try? AvahiDiscovery.browse(seconds: 1)) ?? []).contains { $0.tcpPort == 47_991 } })
        }
    }
}

/// A private system D-Bus (its own socket) and an avahi-daemon on `lo` only, both
/// started as child processes and stopped by pid.
struct PrivateAvahi {
    let dir: String
    let busPid: pid_t
    let avahiPid: pid_t
    var busAddress: String { "unix:path=\(dir)/bus" }

    func log() -> String { (try? String(contentsOfFile: "\(dir)/avahi.log", encoding: .utf8)) ?? "" }

    static func start() throws -> PrivateAvahi {
        guard getuid() == 0 else { throw XCTSkip("avahi-daemon needs root (uid \(getuid()))") }
        for tool in ["/usr/bin/dbus-daemon", "/usr/sbin/avahi-daemon"] where access(tool, X_OK) != 0 {
            throw XCTSkip("\(tool) is not installed (Debian dbus-daemon / avahi-daemon)")
        }
        let dir = NSTemporaryDirectory() + "bendsynth-avahi-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig><type>system</type><listen>unix:path=\(dir)/bus</listen><auth>EXTERNAL</auth>
        <policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>
        """.write(toFile: "\(dir)/bus.conf", atomically: true, encoding: .utf8)
        try """
        [server]
        use-ipv4=yes
        use-ipv6=no
        allow-interfaces=lo
        enable-dbus=yes
        [publish]
        publish-hinfo=no
        publish-workstation=no
        """.write(toFile: "\(dir)/avahi.conf", atomically: true, encoding: .utf8)
        let bus = try spawn(["/usr/bin/dbus-daemon", "--config-file=\(dir)/bus.conf", "--nofork"], env: [], log: "\(dir)/bus.log")
        guard waitFor(5, { access("\(dir)/bus", F_OK) == 0 }) else {
            stopChild(bus); throw XCTSkip("the private D-Bus did not start: \(String((try? String(contentsOfFile: "\(dir)/bus.log", encoding: .utf8)) ?? ""))")
        }
        let avahi = try spawn(["/usr/sbin/avahi-daemon", "--no-drop-root", "--no-chroot", "--no-rlimits", "-f", "\(dir)/avahi.conf"],
                              env: ["DBUS_SYSTEM_BUS_ADDRESS=unix:path=\(dir)/bus"], log: "\(dir)/avahi.log")
        let daemons = PrivateAvahi(dir: dir, busPid: bus, avahiPid: avahi)
        guard waitFor(10, { daemons.log().contains("Server startup complete") }) else {
            let log = daemons.log(); daemons.stop()
            throw XCTSkip("avahi-daemon cannot run here: \(log)")
        }
        return daemons
    }

    func stop() {
        Self.stopChild(avahiPid)
        Self.stopChild(busPid)
        try? FileManager.default.removeItem(atPath: dir)
    }

    static func stopChild(_ pid: pid_t) {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        if !waitFor(5, { waitpid(pid, &status, WNOHANG) == pid }) { kill(pid, SIGKILL); waitpid(pid, &status, 0) }
    }

    /// posix_spawn with stdout+stderr to `log` (no inherited pipes: a daemon never holds ours).
    static func spawn(_ args: [String], env: [String], log: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" } + env
        let argv = args.map { strdup($0) } + [nil], envp = environment.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, args[0], &actions, nil, argv, envp)
        guard rc == 0 else { throw XCTSkip("cannot start \(args[0]): \(String(cString: strerror(rc)))") }
        return pid
    }
}
