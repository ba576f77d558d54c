// SPDX-License-Identifier: GPL-3.0-or-later
/// Why a bench could not measure. bendsynth-bench maps it to its exit codes: `.input` is bad
/// input (exit 2), `.setup` a runtime failure (exit 1).
public enum BenchError: Error, CustomStringConvertible {
    /// The input gives nothing to measure, e.g. a recording with no events that change anything.
    case input(String)
    /// The bench could not be set up or ran without a result (a socket, a pipe, no events arrived).
    case setup(String)

    public var description: String {
        switch self {
        case .input(let m), .setup(let m): return m
        }
    }
}
