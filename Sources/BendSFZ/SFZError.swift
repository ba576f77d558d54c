// SPDX-License-Identifier: GPL-3.0-or-later
/// An SFZ file that does not read: the file and line, and what was expected there.
public struct SFZError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file (the instrument, or a file it includes) as it was named.
    public var file: String
    /// 1-based line number.
    public var line: Int
    /// What is wrong and what was expected.
    public var message: String

    public init(file: String, line: Int, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { "\(file):\(line): \(message)" }
}

/// Where an SFZ item was written.
public struct SFZLocation: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The file as it was named (the instrument's path, or an include's path as resolved).
    public var file: String
    /// 1-based line number.
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var description: String { "\(file):\(line)" }
}
