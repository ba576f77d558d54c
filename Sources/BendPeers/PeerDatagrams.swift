import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Glibc
import Synchronization

/// The session's UDP side: unreliable sends go as datagrams of one frame each, behind
/// the receiver's token (docs/PROTOCOL.md, "After ACCEPT"). Owns the socket; which
/// connection a datagram belongs to is the links' business (`PeerLinks.datagram`).
/// - Thread: `open` at setup (under the session's setup lock), `send` from any thread,
///   `receive` and `close` on the session's I/O thread (`close` also after it ended).
final class PeerDatagrams: @unchecked Sendable {
    /// The socket, −1 until opened and after `close`.
    private let socket = Atomic<Int32>(-1)
    /// The bound port (host order), 0 until opened.
    private let boundPort = Atomic<UInt16>(0)

    /// The descriptor to wait on, −1 when there is none. - Thread: any.
    var descriptor: Int32 { socket.load(ordering: .acquiring) }
    /// The port peers send to, 0 when there is no socket (HELLO/ACCEPT carry it). - Thread: any.
    var port: UInt16 { boundPort.load(ordering: .acquiring) }

    /// Opens the socket on `endpoint` (port 0: any free one), once; later calls do nothing.
    /// - Throws: `PeerError.system` naming the failing call.
    func open(_ endpoint: IPEndpoint) throws {
        guard descriptor < 0 else { return }
        let fd = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Sockets.fail("socket(AF_INET, SOCK_DGRAM)") }
        do { try Sockets.bind(fd, endpoint) } catch { Glibc.close(fd); throw error }
        boundPort.store(Sockets.localEndpoint(fd).port, ordering: .releasing)
        socket.store(fd, ordering: .releasing)
    }

    /// Sends `message` to `endpoint` behind `token`, without blocking.
    /// - Returns: false when there is no socket or the datagram did not go whole.
    func send(_ message: PeerMessage, token: UInt32, to endpoint: IPEndpoint) -> Bool {
        let fd = descriptor
        guard fd >= 0 else { return false }
        let datagram = [UInt8(token >> 24), UInt8(token >> 16 & 255), UInt8(token >> 8 & 255), UInt8(token & 255)] + FrameCodec.encode(message)
        var sa = endpoint.sockaddr
        let n = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, datagram, datagram.count, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return n == datagram.count
    }

    /// Reads every pending datagram: `deliver` gets each one's token, sender and frame
    /// body (what follows the token). Datagrams shorter than a token are skipped.
    func receive(_ buffer: inout [UInt8], _ deliver: (_ token: UInt32, _ from: IPEndpoint, _ body: ArraySlice<UInt8>) -> Void) {
        let fd = descriptor
        guard fd >= 0 else { return }
        while true {
            var sa = sockaddr_in(), len = socklen_t(MemoryLayout<sockaddr_in>.size)
            let n = buffer.withUnsafeMutableBytes { b in
                withUnsafeMutablePointer(to: &sa) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, b.baseAddress, b.count, Int32(MSG_DONTWAIT), $0, &len) }
                }
            }
            guard n >= 0 else { return }
            guard n >= 4 else { continue }
            let token = buffer[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            deliver(token, IPEndpoint(sa), buffer[4..<n])
        }
    }

    /// Closes the socket (once).
    func close() {
        let fd = socket.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 { Glibc.close(fd) }
    }
}
