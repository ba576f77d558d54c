// SPDX-License-Identifier: GPL-3.0-or-later
/// Bad usage: unknown option, missing or malformed value, wrong arguments. Exit code 2.
public struct UsageError: Error, CustomStringConvertible, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Bad input: a file, a line or a field that is not what was expected (the message names
/// it and says what was). Exit code 2 as for `UsageError`, but the command line was right:
/// no usage line follows. (The instrument's layers say it with `InstrumentError(.input)`.)
public struct InputError: Error, CustomStringConvertible, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
