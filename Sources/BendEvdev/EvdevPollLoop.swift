// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import CEvdev
import Glibc
import Synchronization

/// The live read loop: one `EventLoop` ("bendsynth evdev") reads every open input (and,
/// for `auto`, watches /dev/input for new nodes through inotify), decodes what arrives
/// and hands each frame to one callback — so one `ControlPort` gets all devices' events
/// from one producer thread.
///
/// Touch ids from different inputs never collide: each input is an owner in one
/// `TouchNamespace` (ids from 2²⁴ up, apart from the terminal pad's), so a touch keeps
/// its id until it ends and no two held touches share one, however many devices come
/// and go. An input that goes away (ENODEV, end of stream) ends its touches (its ups
/// pass through the callback) and the loop goes on with the others.
public final class EvdevPollLoop: @unchecked Sendable {
    /// (touch-id-bearing control events, the input's timestamp in µs, the input's path)
    public typealias FrameHandler = @Sendable (_ events: [ControlEvent], _ micros: Int64, _ path: String) -> Void

    /// One touch of one input: the input's serial and its decoder's touch id.
    struct InputTouch: Hashable, Sendable {
        var input: UInt64
        var id: UInt32
    }

    private struct Input {
        var serial: UInt64
        var reader: EvdevReader
        var handler: EventLoop.Handler?
    }

    private let loop: EventLoop
    // Owned by the loop's thread once it runs (by the setup thread before).
    private var inputs: [Input] = []
    private var nextSerial: UInt64 = 1
    private var touchIDs = TouchNamespace<InputTouch>(firstID: TouchNamespace<InputTouch>.apartFromPad)
    private let openCount = Atomic<Int>(0)
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
    /// - Throws: `SystemError` when the loop's eventfd cannot be made.
    public init(mapping: EvdevMapping, grab: Bool, onFrame: @escaping FrameHandler, onNote: @escaping @Sendable (String) -> Void) throws {
        loop = try EventLoop(name: "bendsynth evdev")
        self.onFrame = onFrame
        self.onNote = onNote
        self.mapping = mapping
        self.grab = grab
    }

    deinit {
        loop.stop()
        if inotify >= 0 { close(inotify) }
    }

    /// Number of inputs open now. - Thread: any.
    public var count: Int { openCount.load(ordering: .relaxed) }

    /// Adds an open input. - Thread: setup (before `start`) or the loop's thread.
    public func add(_ reader: EvdevReader) {
        let serial = nextSerial
        nextSerial += 1
        let handler = loop.add(fd: reader.fd, events: .readable) { [weak self] _ in self?.read(serial) }
        inputs.append(Input(serial: serial, reader: reader, handler: handler))
        openCount.store(inputs.count, ordering: .relaxed)
    }

    /// Watches `directory` for new event nodes (hot-plug): each that appears is opened
    /// when `auto` takes it (`takeAll`) or it is one of `named` (a named device that
    /// was unplugged and comes back). - Thread: setup.
    /// - Throws: `SystemError` naming inotify_init1/inotify_add_watch.
    public func watch(directory: String, takeAll: Bool = true, named: Set<String> = []) throws {
        self.takeAll = takeAll
        self.named = named
        let fd = try systemCall("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        do {
            try systemCall("inotify_add_watch(\(directory))") { inotify_add_watch(fd, directory, UInt32(IN_CREATE | IN_ATTRIB | IN_MOVED_TO)) }
        } catch {
            close(fd)
            throw error
        }
        inotify = fd
        watched = directory
        loop.add(fd: fd, events: .readable) { [weak self] _ in self?.readDirectoryChanges() }
    }

    /// Opens `path` if `auto` takes it (or `always`: a named device) and it is not
    /// open yet; reports failures once. - Thread: setup or the loop's thread.
    /// - Returns: whether it was added.
    @discardableResult
    public func openIfTaken(_ path: String, always: Bool = false) -> Bool {
        guard !inputs.contains(where: { $0.reader.path == path }) else { return false }
        do {
            let r = try EvdevReader(path: path, mapping: mapping, grab: grab)
            let kind = r.decoder.kind
            guard kind.takenByAuto || always else { return false }
            add(r)
            reported.remove(path)
            onNote("\(path): \"\(UntrustedText.escaped(r.decoder.device.name))\" — \(kind.summary)")
            return true
        } catch {
            if reported.insert(path).inserted { onNote("\(error)") }
            return false
        }
    }

    /// Starts the loop's thread. Inputs that end are dropped (their touches ended); with
    /// no inputs and no watched directory left, it still waits for `stop()`.
    /// - Throws: `SystemError` naming pthread_create. - Thread: setup, once.
    public func start() throws {
        try loop.start()
    }

    /// Stops the loop and waits for its thread (at once: it is woken, not polled).
    /// - Thread: any but the loop's (there it only asks).
    public func stop() {
        loop.stop()
    }

    // MARK: - The loop's thread

    /// Reads what input `serial` has; drops it when it is gone.
    private func read(_ serial: UInt64) {
        guard let index = inputs.firstIndex(where: { $0.serial == serial }) else { return }
        let reader = inputs[index].reader
        let outcome = reader.readAvailable { micros, events in
            var mine: [ControlEvent] = []
            for e in events { mine += touchIDs.translate(e) { InputTouch(input: serial, id: $0) } }
            onFrame(mine, micros, reader.path)
        }
        guard case .gone(let why) = outcome else { return }
        // The reader sent ups for its touches; any left (none, normally) end here.
        let left = touchIDs.endAll { $0.input == serial }
        if !left.isEmpty {
            onFrame(left.map { .touch(id: $0, phase: .up, x: 0, y: 0) }, 0, reader.path)
        }
        onNote(why + "; its touches ended")
        if let h = inputs[index].handler { loop.remove(h) }
        inputs.remove(at: index)
        openCount.store(inputs.count, ordering: .relaxed)
    }

    private func readDirectoryChanges() {
        guard let dir = watched else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(inotify, $0.baseAddress, $0.count) }
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
