// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import Synchronization

/// Sends announcement datagrams to 127.0.0.1:`port` every 100 ms from chosen loopback
/// source addresses (127.0.0.2, 127.0.0.3, … are this host too), as one instrument heard
/// on several addresses, or a forger, would be heard. Stops when released or `stop`ped.
public final class AnnouncementSender: @unchecked Sendable {
    private let port: UInt16
    private let sends = Mutex<[(fd: Int32, bytes: [UInt8])]>([])
    private let running = Atomic<Bool>(true)
    private let done = DispatchSemaphore(value: 0)

    public init(port: UInt16) {
        self.port = port
        Thread.detachNewThread { [self] in
            while running.load(ordering: .relaxed) {
                for s in sends.withLock({ $0 }) { send(s.fd, s.bytes) }
                usleep(100_000)   // the announcement period of this fake instrument
            }
            done.signal()
        }
    }

    /// From now on also sends `text` from `source` (an IPv4 loopback address).
    public func add(_ text: String, from source: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_addr.s_addr = inet_addr(source)
        let rc = withUnsafePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard fd >= 0, rc == 0 else { throw NSError(domain: "bind \(source)", code: Int(errno)) }
        sends.withLock { $0.append((fd, Array(text.utf8))) }
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) {
        var to = sockaddr_in()
        to.sin_family = sa_family_t(AF_INET)
        to.sin_addr.s_addr = inet_addr("127.0.0.1")
        to.sin_port = port.bigEndian
        _ = bytes.withUnsafeBytes { b in
            withUnsafePointer(to: &to) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, b.baseAddress, b.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
    }

    public func stop() {
        guard running.exchange(false, ordering: .relaxed) else { return }
        done.wait()
        for s in sends.withLock({ $0 }) { close(s.fd) }
    }

    deinit { stop() }
}
