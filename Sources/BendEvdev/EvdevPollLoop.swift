import BendControl
import BendSystem
import CEvdev
import Glibc
import Synchronization

/// The live read loop: one thread polls every open input (and, for `auto`, watches
/// /dev/input for new nodes through inotify), decodes what arrives and hands each
/// frame to one callback — so one `ControlPort` gets all devices' events from one
/// producer thread.
///
/// Touch ids from different inputs never collide: each input gets a serial number
/// (1, 2, …) and its decoder's ids are sent as `serial << 24 | id`. An input that goes
/// away (ENODEV, end of stream) ends its touches (its ups pass through the callback)
/// and the loop goes on with the others.
public final class EvdevPollLoop: @unchecked Sendable {
    /// (touch-id-bearing control events, the input's timestamp in µs, the input's path)
    public typealias FrameHandler = @Sendable (_ events: [ControlEvent], _ micros: Int64, _ path: String) -> Void

    private var readers: [(serial: UInt32, reader: EvdevReader)] = []
    private var nextSerial: UInt32 = 1
    private let wake: (read: Int32, write: Int32)
    private let stopped = Atomic<Bool>(false)
    private let onFrame: FrameHandler
    private let onNote: @Sendable (String) -> Void
    private let mapping: EvdevMapping
    private let grab: Bool
    /// inotify descriptor when watching a directory for new devices.
    private var inotify: Int32 = -1
    private var watched: String?
    /// Hot-plug: open every node `auto` takes, or only these paths.
    private var takeAll = true
    private var named: Set<String> = []
    /// Nodes that failed to open, to say so once.
    private var reported: Set<String> = []

    /// - Parameters:
    ///   - onFrame: called on the loop's thread for every frame that does something.
    ///   - onNote: messages for the player (a device appeared, went away, cannot open).
    /// - Throws: `SystemError` when the wake pipe cannot be made.
    public init(mapping: EvdevMapping, grab: Bool, onFrame: @escaping FrameHandler, onNote: @escaping @Sendable (String) -> Void) throws {
        var fds: [Int32] = [0, 0]
        try retryingOnInterrupt("pipe") { pipe(&fds) }
        for fd in fds { _ = fcntl(fd, F_SETFL, O_NONBLOCK); _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        wake = (fds[0], fds[1])
        self.onFrame = onFrame
        self.onNote = onNote
        self.mapping = mapping
        self.grab = grab
    }

    deinit {
        close(wake.read)
        close(wake.write)
        if inotify >= 0 { close(inotify) }
    }

    /// Number of inputs open now.
    public var count: Int { readers.count }

    /// Adds an open input. - Thread: setup (before `run`) or the loop's thread.
    public func add(_ reader: EvdevReader) {
        readers.append((nextSerial, reader))
        nextSerial &+= 1
    }

    /// Watches `directory` for new event nodes (hot-plug): each that appears is opened
    /// when `auto` takes it (`takeAll`) or it is one of `named` (a named device that
    /// was unplugged and comes back). - Thread: setup.
    /// - Throws: `SystemError` naming inotify_init1/inotify_add_watch.
    public func watch(directory: String, takeAll: Bool = true, named: Set<String> = []) throws {
        self.takeAll = takeAll
        self.named = named
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw SystemError(call: "inotify_init1") }
        guard inotify_add_watch(fd, directory, UInt32(IN_CREATE | IN_ATTRIB | IN_MOVED_TO)) >= 0 else {
            let e = SystemError(call: "inotify_add_watch(\(directory))")
            close(fd)
            throw e
        }
        inotify = fd
        watched = directory
    }

    /// Opens `path` if `auto` takes it (or `always`: a named device) and it is not
    /// open yet; reports failures once. - Thread: setup or the loop's thread.
    /// - Returns: whether it was added.
    @discardableResult
    public func openIfTaken(_ path: String, always: Bool = false) -> Bool {
        guard !readers.contains(where: { $0.reader.path == path }) else { return false }
        do {
            let r = try EvdevReader(path: path, mapping: mapping, grab: grab)
            let kind = r.decoder.kind
            guard kind.takenByAuto || always else { return false }
            add(r)
            reported.remove(path)
            onNote("\(path): \"\(r.decoder.device.name)\" — \(kind.summary)")
            return true
        } catch {
            if reported.insert(path).inserted { onNote("\(error)") }
            return false
        }
    }

    /// Polls until `stop()`. Inputs that end are dropped (their touches ended); with no
    /// inputs and no watched directory left, it still waits for `stop()`.
    /// - Thread: the loop's own thread.
    public func run() {
        var fds: [pollfd] = []
        while !stopped.load(ordering: .acquiring) {
            fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            if inotify >= 0 { fds.append(pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)) }
            let base = fds.count
            for (_, r) in readers { fds.append(pollfd(fd: r.fd, events: Int16(POLLIN), revents: 0)) }
            let n = poll(&fds, nfds_t(fds.count), -1)
            if n < 0 {
                if errno == EINTR { continue }
                onNote("\(SystemError(call: "poll")); input stopped")
                return
            }
            if fds[0].revents != 0 { break }
            if inotify >= 0 && fds[1].revents != 0 { readDirectoryChanges() }
            var gone: [Int] = []
            for i in 0..<(fds.count - base) where fds[base + i].revents != 0 {
                let (serial, reader) = readers[i]
                let outcome = reader.readAvailable { micros, events in
                    onFrame(events.map { EvdevPollLoop.tag($0, serial) }, micros, reader.path)
                }
                if case .gone(let why) = outcome {
                    onNote(why + "; its touches ended")
                    gone.append(i)
                }
            }
            for i in gone.reversed() { readers.remove(at: i) }
        }
    }

    /// Makes `run` return. - Thread: any.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        var b: UInt8 = 1
        _ = write(wake.write, &b, 1)
    }

    /// The event with its touch id made unique across inputs.
    static func tag(_ e: ControlEvent, _ serial: UInt32) -> ControlEvent {
        guard case let .touch(id, phase, x, y) = e else { return e }
        return .touch(id: serial << 24 | (id & 0x00ff_ffff), phase: phase, x: x, y: y)
    }

    private func readDirectoryChanges() {
        guard let dir = watched else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard n > 0 else { return }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= n {
                let len = buffer.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)) }
                let nameBytes = buffer[(offset + header)..<min(offset + header + len, n)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                let path = dir + "/" + name
                if EvdevDiscovery.isEventNode(name) && (takeAll || named.contains(path)) {
                    // A new node may not be readable until udev sets its mode (IN_ATTRIB).
                    openIfTaken(path, always: named.contains(path))
                }
                offset += header + len
            }
        }
    }
}
