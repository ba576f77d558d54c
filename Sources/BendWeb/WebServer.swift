// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CWebsockets
import Foundation
import Glibc
import Synchronization

/// The web controller's server: libwebsockets serves the page's files (GET only, from
/// memory) and the WebSocket at `/ws`, over TLS when a certificate is given; each
/// connection's text messages go to `WebSessions`, whose verdict is carried out here.
///
/// One service thread runs every connection (lws's own loop); replies are queued and
/// written when lws says the connection is writable. A timer of that loop (lws's sorted
/// usec list) ends the touches of silent connections.
public final class WebServer: @unchecked Sendable {
    public static let socketPath = "/ws"
    /// The WebSocket subprotocol the page asks for.
    public static let subprotocol = "bendsynth"
    public let address: WebListenAddress
    public let certificate: WebCertificate?
    public let assets: WebAssets
    public let sessions: WebSessions
    private let log: @Sendable (String) -> Void
    /// The player's lines of phones connecting, leaving, refused and closed.
    private let connections: WebConnectionLog
    private var context: OpaquePointer?
    /// libwebsockets' own service loop (`lws_service`: it polls its sockets and runs its
    /// timers itself), on a thread of its own rather than an `EventLoop` — one of the few
    /// (docs/DESIGN.md lists them: the render threads, the stop-signal waiter, the tables'
    /// maker, JACK's shutdown watcher, Avahi's poll and this).
    private var thread: SystemThread?
    /// The silence rule's lws timer (zeroed `lws_sorted_usec_list_t`), this server's
    /// pointer stored right after it for the callback. Service thread once started.
    private var silenceTimer: UnsafeMutableRawPointer?
    /// How often silent connections are looked for (`WebSessions.endSilent`), in µs.
    static let silenceCheckMicros: lws_usec_t = 50_000
    private let stopping = Atomic<Bool>(false)
    /// The port bound (the one asked for, or the one the system gave for 0).
    public private(set) var boundPort: UInt16 = 0
    /// Service thread only: replies waiting for their connection to be writable.
    private var outbox: [UInt64: [[UInt8]]] = [:]
    /// The part of each connection's current message received so far, when it came in
    /// pieces (server thread only). libwebsockets hands a message over as it reads it: a
    /// frame whose bytes came in two reads (a backlog that ended mid-frame, a phone's
    /// Wi-Fi delivering in bursts) arrives in two pieces, and so does a message sent as
    /// several frames (RFC 6455 §5.4). At most `WebMessageDecoder.maxMessageBytes`.
    private var partial: [UInt64: [UInt8]] = [:]
    /// Connections open but not yet paired, whose hello timeout still runs (server
    /// thread only): once paired, a message costs no pairing check.
    private var unpaired: Set<UInt64> = []
    /// Connections this server closed (server thread only): their close was said, not
    /// their leaving.
    private var closing: Set<UInt64> = []
    /// libwebsockets' error lines, at most one a second per kind (`RateLimitedLog`).
    static let libraryLog = RateLimitedLog(interval: 1) { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }

    /// C strings and the protocol table lws keeps pointers to while the context lives.
    private var keep: [UnsafeMutablePointer<CChar>] = []
    private var protocols: UnsafeMutablePointer<lws_protocols>?

    /// Starts serving. - Throws: `WebServerError` (port in use, bad certificate).
    public init(address: WebListenAddress, certificate: WebCertificate?, assets: WebAssets, sessions: WebSessions,
                log: @escaping @Sendable (String) -> Void) throws(WebServerError) {
        self.address = address
        self.certificate = certificate
        self.assets = assets
        self.sessions = sessions
        self.log = log
        connections = WebConnectionLog(log: log)
        try start()
    }

    deinit {
        stop()
        keep.forEach { free($0) }
        silenceTimer?.deallocate()
        protocols?.deallocate()
    }

    /// True when the page is served over HTTPS.
    public var isSecure: Bool { certificate != nil }

    /// The address to open: `https://HOST:PORT/#TOKEN` (`http://` without TLS).
    public var url: String {
        "\(isSecure ? "https" : "http")://\(address.reachableHost):\(boundPort)/#\(sessions.token.text)"
    }

    private func cString(_ s: String) -> UnsafeMutablePointer<CChar> {
        let p = strdup(s)!
        keep.append(p)
        return p
    }

    private func start() throws(WebServerError) {
        // libwebsockets logs a bind to an address this machine does not have, or to a port
        // in use, in its own words and serves nothing; a test bind first (SO_REUSEADDR, as
        // lws binds) turns those into errors the player can act on.
        if let probeAddress = SocketAddress(numeric: address.host, port: 0) {
            do {
                let probe = try Socket.open(probeAddress.family, .stream)
                defer { probe.close() }
                try probe.bind(to: probeAddress)
            } catch {
                throw WebServerError("cannot serve on \(address.host):\(address.port): \(error.description) (expected an address of this machine, or 0.0.0.0 for all)")
            }
            if address.port != 0, let portAddress = SocketAddress(numeric: address.host, port: address.port) {
                do {
                    let probe = try Socket.listening(on: portAddress)
                    probe.close()
                } catch where error.code == EADDRINUSE {
                    throw WebServerError("--web \(address.host):\(address.port): the port is in use (another program listens there); choose another with --web ADDR:PORT")
                } catch {
                    throw WebServerError("cannot serve on \(address.host):\(address.port): \(error.description)")
                }
            }
        }
        lws_set_log_level(LLL_ERR, { _, line in
            guard let line else { return }
            let text = UntrustedText.escaped(String(cString: line).trimmingCharacters(in: .whitespacesAndNewlines))
            // lws says its error once per bad connection (a TLS handshake that fails, a
            // scanner): one line a second per kind of error (its words, numbers left out).
            WebServer.libraryLog.line(String(text.unicodeScalars.filter { !("0"..."9").contains($0) }), "bendsynth: web: " + text)
        })
        let table = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        table.initialize(repeating: lws_protocols(), count: 2)
        // The first protocol also gets plain HTTP and WebSockets that name no subprotocol.
        table[0].name = UnsafePointer(cString(WebServer.subprotocol))
        table[0].callback = { wsi, reason, user, input, length in
            guard let wsi, let server = WebServer.server(lws_context_user(lws_get_context(wsi))) else { return 0 }
            return server.callback(wsi, reason, user, input, length)
        }
        table[0].per_session_data_size = MemoryLayout<UInt64>.size
        table[0].rx_buffer_size = WebMessageDecoder.maxMessageBytes
        protocols = table

        var info = lws_context_creation_info()
        info.port = Int32(address.port)
        info.iface = UnsafePointer(cString(address.host))
        info.protocols = UnsafePointer(table)
        info.gid = -1
        info.uid = -1
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.alpn = UnsafePointer(cString("http/1.1"))
        info.options = UInt64(LWS_SERVER_OPTION_DISABLE_IPV6) | UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
        if let certificate {
            info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
            info.ssl_cert_filepath = UnsafePointer(cString(certificate.certificatePath))
            info.ssl_private_key_filepath = UnsafePointer(cString(certificate.keyPath))
        }
        guard let ctx = lws_create_context(&info) else {
            throw WebServerError("cannot serve on \(address.host):\(address.port) (in use, or a bad certificate; see the message above)")
        }
        context = ctx
        let vhost = lws_get_vhost_by_name(ctx, "default")
        let port = vhost.map { lws_get_vhost_listen_port($0) } ?? -1
        boundPort = port > 0 ? UInt16(port) : address.port
        let timerBytes = MemoryLayout<lws_sorted_usec_list_t>.stride
        let timer = UnsafeMutableRawPointer.allocate(byteCount: timerBytes + MemoryLayout<UnsafeMutableRawPointer>.size, alignment: 8)
        timer.initializeMemory(as: UInt8.self, repeating: 0, count: timerBytes)
        timer.storeBytes(of: Unmanaged.passUnretained(self).toOpaque(), toByteOffset: timerBytes, as: UnsafeMutableRawPointer.self)
        silenceTimer = timer
        scheduleSilenceCheck()  // before the service thread starts; then only on it
        do {
            thread = try SystemThread(name: "bendsynth web io") { [self] in
                while !stopping.load(ordering: .acquiring), let context {
                    if lws_service(context, 0) < 0 { break }
                }
            }
        } catch {
            lws_sul_cancel(timer.assumingMemoryBound(to: lws_sorted_usec_list_t.self))
            lws_context_destroy(ctx)
            context = nil
            throw WebServerError("cannot start the web controller's thread: \(error)")
        }
    }

    /// Runs the silence rule (and says the counts of lws lines held back) on the service
    /// thread in `silenceCheckMicros`, and again after.
    private func scheduleSilenceCheck() {
        guard let context, let silenceTimer else { return }
        lws_sul_schedule(context, 0, silenceTimer.assumingMemoryBound(to: lws_sorted_usec_list_t.self), { sul in
            guard let sul else { return }
            let raw = UnsafeMutableRawPointer(sul).load(fromByteOffset: MemoryLayout<lws_sorted_usec_list_t>.stride, as: UnsafeMutableRawPointer.self)
            let server = Unmanaged<WebServer>.fromOpaque(raw).takeUnretainedValue()
            server.sessions.endSilent(now: MonotonicClock.nanos())
            WebServer.libraryLog.flush()  // the counts of lws lines held back
            server.connections.flush()
            server.scheduleSilenceCheck()
        }, WebServer.silenceCheckMicros)
    }

    /// Stops serving: every connection closes (each one's touches end) and the service
    /// thread is joined. - Thread: setup.
    public func stop() {
        guard let context else { return }
        stopping.store(true, ordering: .releasing)
        lws_cancel_service(context)
        thread?.join()
        thread = nil
        silenceTimer.map { lws_sul_cancel($0.assumingMemoryBound(to: lws_sorted_usec_list_t.self)) }
        lws_context_destroy(context)
        self.context = nil
    }

    // MARK: the service thread

    private func callback(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                          _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_HTTP:
            return serve(wsi, path: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "")
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return header(wsi, WSI_TOKEN_GET_URI) == WebServer.socketPath ? 0 : 1  // 1: refused
        case LWS_CALLBACK_ESTABLISHED:
            try? Socket(fd: lws_get_socket_fd(wsi)).setNoDelay()  // Nagle + delayed ACK: ~200 ms stalls on small messages
            let (id, refusal) = sessions.open(now: MonotonicClock.nanos())
            user?.storeBytes(of: id, as: UInt64.self)
            if case let .close(code, why)? = refusal { return close(wsi, id, code, why) }
            // Closed by libwebsockets unless it pairs in time (cancelled when it does).
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, sessions.limits.helloSeconds)
            unpaired.insert(id)
            return 0
        case LWS_CALLBACK_RECEIVE:
            guard let user else { return -1 }
            let id = user.load(as: UInt64.self)
            let piece = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
            let started = partial[id]
            if started == nil, lws_frame_is_binary(wsi) != 0 { return close(wsi, id, .badMessage, "binary messages are not used") }
            // Final: the last frame of the message, and nothing of it left to read.
            let final = lws_is_final_fragment(wsi) != 0
            guard (started?.count ?? 0) + piece.count <= WebMessageDecoder.maxMessageBytes else {
                partial[id] = nil
                return close(wsi, id, .badMessage, "message over \(WebMessageDecoder.maxMessageBytes) bytes")
            }
            if !final {
                partial[id] = (started ?? []) + piece
                sessions.heard(id, now: MonotonicClock.nanos())
                return 0
            }
            partial[id] = nil
            let verdict = started.map { whole in (whole + piece).withUnsafeBytes { sessions.receive(id, $0, now: MonotonicClock.nanos()) } }
                ?? sessions.receive(id, piece, now: MonotonicClock.nanos())
            if unpaired.contains(id), let phone = sessions.phone(id) {
                unpaired.remove(id)
                lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0)
                connections.paired(phone: phone, address: peer(wsi))
            }
            switch verdict {
            case let .keep(replies):
                if !replies.isEmpty {
                    outbox[id, default: []] += replies.map { Array($0.utf8) }
                    lws_callback_on_writable(wsi)
                }
                return 0
            case let .close(code, why):
                return close(wsi, id, code, why)
            }
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let user else { return 0 }
            let id = user.load(as: UInt64.self)
            guard var queue = outbox[id], !queue.isEmpty else { return 0 }
            let message = queue.removeFirst()
            outbox[id] = queue.isEmpty ? nil : queue
            let pre = cws_pre()
            var buffer = [UInt8](repeating: 0, count: pre + message.count)
            buffer.replaceSubrange(pre..., with: message)
            let written = buffer.withUnsafeMutableBufferPointer { lws_write(wsi, $0.baseAddress! + pre, message.count, LWS_WRITE_TEXT) }
            if written < message.count { return -1 }
            if !queue.isEmpty { lws_callback_on_writable(wsi) }
            return 0
        case LWS_CALLBACK_CLOSED:
            if let user {
                let id = user.load(as: UInt64.self)
                outbox[id] = nil
                partial[id] = nil
                unpaired.remove(id)
                let phone = sessions.close(id)
                if closing.remove(id) == nil, let phone, !stopping.load(ordering: .acquiring) { connections.left(phone: phone) }
            }
            return 0
        default:
            return 0
        }
    }

    /// Closes connection `id`'s WebSocket with a code and reason (at most 123 bytes),
    /// shown by the page, and says so.
    private func close(_ wsi: OpaquePointer, _ id: UInt64, _ code: WebCloseCode, _ reason: String) -> Int32 {
        connections.closed(phone: sessions.phone(id), address: peer(wsi), code: code, why: reason)
        closing.insert(id)
        var bytes = Array(reason.utf8.prefix(123))
        lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code.rawValue)), &bytes, bytes.count)
        return -1
    }

    /// The connection's peer address ("192.168.1.20"), without a name lookup.
    private func peer(_ wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &buffer, buffer.count) != nil else { return "?" }
        return cText(buffer)
    }

    private func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = lws_hdr_total_length(wsi, token)
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return cText(buffer)
    }

    /// GET of the page's files; anything else: 404.
    private func serve(_ wsi: OpaquePointer, path: String) -> Int32 {
        let isGet = lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0
        guard isGet, let file = assets.file(at: path) else {
            return respond(wsi, status: 404, type: "text/plain; charset=utf-8", body: Array("not found\n".utf8))
        }
        return respond(wsi, status: 200, type: file.contentType, body: file.body)
    }

    private func respond(_ wsi: OpaquePointer, status: UInt32, type: String, body: [UInt8]) -> Int32 {
        let pre = cws_pre()
        var head = [UInt8](repeating: 0, count: pre + 2048)
        let ok: Bool = head.withUnsafeMutableBufferPointer { buf in
            let start = buf.baseAddress! + pre, end = buf.baseAddress! + buf.count
            var p: UnsafeMutablePointer<UInt8>? = start
            guard lws_add_http_common_headers(wsi, status, type, lws_filepos_t(body.count), &p, end) == 0 else { return false }
            for (name, value) in [
                ("cache-control:", "no-store"), ("x-content-type-options:", "nosniff"), ("referrer-policy:", "no-referrer"),
                ("content-security-policy:", "default-src 'self'; connect-src 'self'; frame-ancestors 'none'"),
            ] {
                guard lws_add_http_header_by_name(wsi, name, value, Int32(value.utf8.count), &p, end) == 0 else { return false }
            }
            return lws_finalize_write_http_header(wsi, start, &p, end) == 0
        }
        guard ok else { return -1 }
        var payload = [UInt8](repeating: 0, count: pre) + body
        let written = payload.withUnsafeMutableBufferPointer { lws_write(wsi, $0.baseAddress! + pre, body.count, LWS_WRITE_HTTP_FINAL) }
        guard written == body.count else { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    static func server(_ pointer: UnsafeMutableRawPointer?) -> WebServer? {
        pointer.map { Unmanaged<WebServer>.fromOpaque($0).takeUnretainedValue() }
    }
}

public struct WebServerError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
