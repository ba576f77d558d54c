import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Glibc

/// The session's UDP side: unreliable sends arrive as datagrams of one frame each,
/// behind the receiver's token (docs/PROTOCOL.md, "After ACCEPT").
extension PeerSession {
    /// - Thread: setup (under `setup`).
    func openUDP(_ ep: IPEndpoint) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Sockets.fail("socket(AF_INET, SOCK_DGRAM)") }
        do { try Sockets.bind(fd, ep) } catch { close(fd); throw error }
        udp = fd
        udpPort = Sockets.localEndpoint(fd).port
    }

    /// Reads every pending datagram. - Thread: I/O thread.
    func readDatagrams(_ buffer: inout [UInt8]) {
        while true {
            var sa = sockaddr_in(), len = socklen_t(MemoryLayout<sockaddr_in>.size)
            let n = buffer.withUnsafeMutableBytes { b in
                withUnsafeMutablePointer(to: &sa) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(udp, b.baseAddress, b.count, Int32(MSG_DONTWAIT), $0, &len) }
                }
            }
            guard n >= 0 else { return }
            guard n >= 4 else { continue }
            let token = buffer[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard let c = connections.first(where: { $0.localToken == token && $0.phase == .connected }) else { continue }
            let from = IPEndpoint(sa)
            var d = FrameStreamDecoder()
            guard c.shared.withLock({ $0.udp?.address == from.address }),
                  let ms = try? d.feed(buffer[4..<n]), ms.count == 1, d.pending == 0 else {
                c.shared.withLock { $0.status.droppedDatagrams += 1 }
                continue
            }
            c.lastHeard = MonotonicNanos.now()
            switch ms[0] {
            case .touch, .tilt: onReceive(ms[0], c.info)
            default: c.shared.withLock { $0.status.droppedDatagrams += 1 }
            }
        }
    }
}
