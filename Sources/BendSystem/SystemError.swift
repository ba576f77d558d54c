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
}

/// Retries `body` while it fails with EINTR; throws `SystemError` for any other failure
/// (a result of −1).
/// - Parameter call: the C call's name for the error.
@discardableResult
public func retryingOnInterrupt<T: BinaryInteger>(_ call: @autoclosure () -> String, _ body: () -> T) throws -> T {
    while true {
        let r = body()
        if r != -1 { return r }
        if errno == EINTR { continue }
        throw SystemError(call: call())
    }
}
