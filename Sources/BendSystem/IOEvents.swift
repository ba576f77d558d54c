// SPDX-License-Identifier: GPL-3.0-or-later
import CSystem
import Glibc

/// What a descriptor is watched for, and what the event loop found on it.
public struct IOEvents: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Data (or a connection, or end of input) can be read without blocking.
    public static let readable = IOEvents(rawValue: 1)
    /// Data can be written without blocking.
    public static let writable = IOEvents(rawValue: 2)
    /// The other end hung up (POLLHUP, POLLRDHUP). Always reported, whatever was asked;
    /// reads return what is left, then 0 (a terminal: EIO).
    public static let hangUp = IOEvents(rawValue: 4)
    /// An error is pending on the descriptor (POLLERR) or it is not open (POLLNVAL).
    /// Always reported; a handler that sees it should remove itself.
    public static let error = IOEvents(rawValue: 8)

    /// The `poll` event bits asked for.
    var pollRequest: Int16 {
        var bits: Int32 = 0
        if contains(.readable) { bits |= Int32(POLLIN) | Int32(POLLPRI) }
        if contains(.writable) { bits |= Int32(POLLOUT) }
        return Int16(truncatingIfNeeded: bits)
    }

    /// The events `poll` returned in `revents`.
    init(revents: Int16) {
        let r = Int32(revents)
        var e: IOEvents = []
        if r & (Int32(POLLIN) | Int32(POLLPRI)) != 0 { e.insert(.readable) }
        if r & Int32(POLLOUT) != 0 { e.insert(.writable) }
        if r & (Int32(POLLHUP) | 0x2000 /* POLLRDHUP */) != 0 { e.insert(.hangUp) }
        if r & (Int32(POLLERR) | Int32(POLLNVAL)) != 0 { e.insert(.error) }
        self = e
    }

    public var description: String {
        let names: [(IOEvents, String)] = [(.readable, "readable"), (.writable, "writable"), (.hangUp, "hangUp"), (.error, "error")]
        return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
    }
}

/// Waiting on one descriptor from a thread that may block (a blocking connect, a
/// discovery that listens for a while): the one-shot form of what `EventLoop` does.
public enum IOWait {
    /// Waits until `fd` is ready for `events` or `timeout` seconds pass; EINTR resumes the
    /// wait with the time left.
    /// - Returns: the events found (hang-up and error included), or [] on timeout.
    /// - Throws: `SystemError` naming `ppoll` (ENOMEM).
    /// - Thread: any that may block.
    public static func wait(fd: Int32, for events: IOEvents, timeout: Double) throws(SystemError) -> IOEvents {
        let deadline = MonotonicClock.nanos() &+ UInt64(max(0, timeout) * 1e9)
        var p = pollfd(fd: fd, events: events.pollRequest, revents: 0)
        // The body runs again on EINTR, with the time left then.
        let n = try systemCall("ppoll(fd \(fd))") { () -> Int32 in
            let now = MonotonicClock.nanos()
            let left = deadline > now ? deadline - now : 0
            var ts = timespec(tv_sec: Int(left / 1_000_000_000), tv_nsec: Int(left % 1_000_000_000))
            return bend_ppoll(&p, 1, &ts)
        }
        return n > 0 ? IOEvents(revents: p.revents) : []
    }
}
