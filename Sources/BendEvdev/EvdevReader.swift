// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import CEvdev
import Glibc

/// One open input for the live read loop: an event node read through libevdev, or any
/// file descriptor carrying raw `struct input_event`s (a pipe in the tests, with the
/// description given) — decoded by the same `EvdevDecoder` as a replay.
///
/// - Thread: the read loop's thread only (after setup).
public final class EvdevReader: @unchecked Sendable {
    public let path: String
    public let fd: Int32
    public private(set) var decoder: EvdevDecoder
    private let device: OpaquePointer?
    private var partial: [UInt8] = []
    private var syncing = false
    private var lastMicros: Int64 = 0

    /// What a read found.
    public enum Outcome: Sendable, Equatable {
        /// Read what there was; the input is still there.
        case more
        /// The input is gone (ENODEV: unplugged; end of stream; a read error, named);
        /// its touches have been ended through the frame callback.
        case gone(String)
    }

    /// Opens an event node through libevdev, non-blocking.
    /// - Parameter grab: take the device exclusively (EVIOCGRAB through libevdev_grab).
    /// - Throws: `EvdevOpenError` naming the node, the call and the reason.
    public convenience init(path: String, mapping: EvdevMapping, grab: Bool = false) throws {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw EvdevOpenError(path: path, call: "open", code: errno) }
        try self.init(eventFD: fd, path: path, mapping: mapping, grab: grab)
    }

    /// Reads an open, non-blocking event node descriptor (owned from now on: closed on
    /// deinit, or at once when libevdev refuses it) through libevdev — the live path of
    /// `init(path:)`; tests give a fake device's descriptor (CFakeEvdev).
    /// - Throws: `EvdevOpenError` naming `path`, the call and the reason.
    public init(eventFD fd: Int32, path: String, mapping: EvdevMapping, grab: Bool = false) throws {
        var dev: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &dev)
        guard rc == 0, let dev else {
            close(fd)
            throw EvdevOpenError(path: path, call: "libevdev_new_from_fd", code: -rc)
        }
        if grab {
            let g = libevdev_grab(dev, LIBEVDEV_GRAB)
            if g != 0 {
                libevdev_free(dev)
                close(fd)
                throw EvdevOpenError(path: path, call: "EVIOCGRAB", code: -g)
            }
        }
        self.path = path
        self.fd = fd
        self.device = dev
        decoder = EvdevDecoder(device: EvdevReader.describe(dev), mapping: mapping)
    }

    /// Reads raw `struct input_event`s from `fd` (owned from now on: closed on deinit),
    /// for a device described by `device`. SYN_DROPPED is passed to the decoder as is.
    public init(rawFD fd: Int32, name: String, device: EvdevDeviceDescription, mapping: EvdevMapping) {
        path = name
        self.fd = fd
        self.device = nil
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        decoder = EvdevDecoder(device: device, mapping: mapping)
    }

    deinit {
        if let device { libevdev_free(device) }
        close(fd)
    }

    /// The device's description as libevdev reports it (axes with their current values).
    static func describe(_ dev: OpaquePointer) -> EvdevDeviceDescription {
        var d = EvdevDeviceDescription(name: libevdev_get_name(dev).map { String(cString: $0) } ?? "")
        d.bus = UInt16(truncatingIfNeeded: libevdev_get_id_bustype(dev))
        d.vendor = UInt16(truncatingIfNeeded: libevdev_get_id_vendor(dev))
        d.product = UInt16(truncatingIfNeeded: libevdev_get_id_product(dev))
        d.version = UInt16(truncatingIfNeeded: libevdev_get_id_version(dev))
        for p in 0...EvdevCode.propMax where libevdev_has_property(dev, UInt32(p)) == 1 { d.properties.insert(p) }
        for t in 0...EvdevCode.evMax where libevdev_has_event_type(dev, UInt32(t)) == 1 { d.eventTypes.insert(t) }
        for k in 0...EvdevCode.keyMax where libevdev_has_event_code(dev, UInt32(EvdevCode.evKey), UInt32(k)) == 1 { d.keys.insert(k) }
        for r in 0...UInt16(0x0f) where libevdev_has_event_code(dev, UInt32(EvdevCode.evRel), UInt32(r)) == 1 { d.relative.insert(r) }
        for a in 0...EvdevCode.absMax {
            guard libevdev_has_event_code(dev, UInt32(EvdevCode.evAbs), UInt32(a)) == 1,
                  let info = libevdev_get_abs_info(dev, UInt32(a))?.pointee else { continue }
            d.absolute[a] = AbsInfo(value: info.value, minimum: info.minimum, maximum: info.maximum,
                                    fuzz: info.fuzz, flat: info.flat, resolution: info.resolution)
        }
        if let slotAxis = d.absolute[EvdevCode.absMTSlot] {
            d.currentSlot = libevdev_get_current_slot(dev)
            for s in 0...max(0, min(slotAxis.maximum, 63)) {
                func value(_ code: UInt16) -> Int32 { libevdev_get_slot_value(dev, UInt32(s), UInt32(code)) }
                d.slots.append(SlotState(trackingID: value(EvdevCode.absMTTrackingID), x: value(EvdevCode.absMTPositionX),
                                         y: value(EvdevCode.absMTPositionY), toolType: value(EvdevCode.absMTToolType)))
            }
        }
        return d
    }

    /// Reads every event available now and decodes it; each frame that does something
    /// goes to `frame` (timestamp µs, events). When the input is gone, the frame
    /// callback gets the ups of its touches and the outcome says why.
    public func readAvailable(_ frame: (Int64, [ControlEvent]) -> Void) -> Outcome {
        func feed(_ e: InputEvent) {
            lastMicros = e.micros
            let out = decoder.feed(e)
            if !out.isEmpty { frame(e.micros, out) }
        }
        func gone(_ why: String) -> Outcome {
            let ups = decoder.deviceRemoved()
            if !ups.isEmpty { frame(lastMicros, ups) }
            return .gone(why)
        }
        if let device {
            while true {
                var ev = input_event()
                let flags = syncing ? LIBEVDEV_READ_FLAG_SYNC : LIBEVDEV_READ_FLAG_NORMAL
                let rc = libevdev_next_event(device, flags.rawValue, &ev)
                if rc == -EAGAIN {
                    if syncing { syncing = false; continue }  // sync done: back to normal
                    return .more
                }
                if rc == Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue) {
                    feed(InputEvent(ev))
                } else if rc == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue) {
                    // First the SYN_DROPPED itself (normal mode), then the state delta.
                    syncing = true
                    feed(InputEvent(ev))
                } else if rc == -EINTR {
                    continue
                } else if rc == -ENODEV {
                    return gone("\(path): the device was removed")
                } else {
                    return gone("\(path): \(SystemError(call: "libevdev_next_event", code: -rc))")
                }
            }
        }
        let size = MemoryLayout<input_event>.size
        var buffer = [UInt8](repeating: 0, count: size * 64)
        while true {
            let n: Int
            do {
                n = try systemCall("read") { buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } }
            } catch where error.code == EAGAIN {
                return .more
            } catch where error.code == ENODEV {
                return gone("\(path): the device was removed")
            } catch {
                return gone("\(path): \(error)")
            }
            if n == 0 { return gone("\(path): end of stream") }
            partial += buffer[0..<n]
            let whole = partial.count / size * size
            partial.withUnsafeBytes { raw in
                for offset in stride(from: 0, to: whole, by: size) {
                    feed(InputEvent(raw.loadUnaligned(fromByteOffset: offset, as: input_event.self)))
                }
            }
            partial.removeFirst(whole)
            if n < buffer.count { return .more }  // drained for now (a pipe reads short)
        }
    }
}

extension InputEvent {
    /// From the kernel struct.
    public init(_ e: input_event) {
        self.init(micros: Int64(e.time.tv_sec) * 1_000_000 + Int64(e.time.tv_usec), type: e.type, code: e.code, value: e.value)
    }
}

extension input_event {
    /// The kernel struct for an event (for writing test streams).
    public init(_ e: InputEvent) {
        self.init(time: timeval(tv_sec: Int(e.micros / 1_000_000), tv_usec: Int(e.micros % 1_000_000)), type: e.type, code: e.code, value: e.value)
    }
}

extension InputEvent {
    /// `events` as the bytes of consecutive `struct input_event`s, as an event node
    /// delivers them (for feeding the live read loop through a pipe).
    public static func kernelBytes(_ events: [InputEvent]) -> [UInt8] {
        events.flatMap { e -> [UInt8] in
            var s = input_event(e)
            return withUnsafeBytes(of: &s) { Array($0) }
        }
    }
}
