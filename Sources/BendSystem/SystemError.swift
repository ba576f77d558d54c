// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A failed C call: the call's name and its errno, with `strerror`'s text.
public struct SystemError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The failing call, e.g. "open(/dev/input/event3)".
    public var call: String
    /// errno value.
    public var code: Int32

    public init(call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    public var description: String { "\(call): \(String(cString: strerror(code)))" }

    /// The errno's symbolic name, "EPERM", "EAGAIN", …; "errno N" for others.
    public var codeName: String { SystemError.name(of: code) }

    /// "EPERM" for EPERM, etc.; "errno N" for codes not listed.
    public static func name(of code: Int32) -> String {
        switch code {
        case EPERM: "EPERM"
        case EINTR: "EINTR"
        case EIO: "EIO"
        case EBADF: "EBADF"
        case EAGAIN: "EAGAIN"
        case ENOMEM: "ENOMEM"
        case EACCES: "EACCES"
        case EINVAL: "EINVAL"
        case ENODEV: "ENODEV"
        case ESRCH: "ESRCH"
        case EPIPE: "EPIPE"
        case ETIMEDOUT: "ETIMEDOUT"
        case ECONNREFUSED: "ECONNREFUSED"
        case EADDRINUSE: "EADDRINUSE"
        default: "errno \(code)"
        }
    }
}

/// The one place a C call's failure becomes a `SystemError`, and EINTR is retried
/// (swift-system's `syscall` helper is the model): runs `body` until it does not fail
/// with EINTR and returns its result; a result of −1 with any other errno throws
/// `SystemError(call:code:)`.
///
///     let n = try systemCall("read(fd \(fd))") { read(fd, buffer, count) }
///
/// - Parameters:
///   - call: the call's name for the error, e.g. "bind(127.0.0.1:9000)" (built only on failure).
///   - retryOnInterrupt: false for calls that must not be restarted (e.g. `close`: Linux
///     has freed the descriptor even when it reports EINTR).
/// - Thread: any (not the render thread: it may build a string).
@discardableResult
public func systemCall<T: FixedWidthInteger & SignedInteger>(
    _ call: @autoclosure () -> String, retryOnInterrupt: Bool = true, _ body: () -> T
) throws(SystemError) -> T {
    while true {
        let r = body()
        if r != -1 { return r }
        let code = errno
        if code == EINTR && retryOnInterrupt { continue }
        throw SystemError(call: call(), code: code)
    }
}

/// For calls that return their error number instead of setting errno (the pthread
/// functions, `getsockopt(SO_ERROR)` values): 0 is success, anything else throws
/// `SystemError(call:code:)` with that number. EINTR is never returned by these.
/// - Thread: any.
public func systemCallReturningError(_ call: @autoclosure () -> String, _ body: () -> Int32) throws(SystemError) {
    let rc = body()
    if rc != 0 { throw SystemError(call: call(), code: rc) }
}
