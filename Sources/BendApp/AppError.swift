import BendControl

/// Why a command failed, and so its exit code: 2 for bad usage or bad input (the
/// message names the option, file, line or field), 1 for a runtime failure.
public enum AppError: Error, CustomStringConvertible {
    case usage(String)
    case input(String)
    case runtime(String)

    public var exitCode: Int32 {
        switch self {
        case .usage, .input: return 2
        case .runtime: return 1
        }
    }

    public var description: String {
        switch self {
        case .usage(let m), .input(let m), .runtime(let m): return m
        }
    }
}

extension AppError {
    /// A source's failure to start, with the same exit status.
    init(_ e: InputSourceError) {
        switch e.kind {
        case .input: self = .input(e.description)
        case .runtime: self = .runtime(e.description)
        }
    }
}
