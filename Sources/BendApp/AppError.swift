// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem

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
    /// Any error as the command line says it: the layers' `UsageError` (exit 2, the usage
    /// line follows), `InputError` and `InstrumentError(.input)` (exit 2), and anything
    /// else a runtime failure (exit 1).
    public init(_ error: any Error) {
        switch error {
        case let e as AppError: self = e
        case let e as UsageError: self = .usage(e.message)
        case let e as InputError: self = .input(e.message)
        case let e as InstrumentError: self = e.kind == .input ? .input(e.description) : .runtime(e.description)
        default: self = .runtime("\(error)")
        }
    }
}
