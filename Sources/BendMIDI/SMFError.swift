// SPDX-License-Identifier: GPL-3.0-or-later
/// A Standard MIDI File that cannot be read: where (byte offset from the start of the
/// file) and what was expected there.
public struct SMFError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset from the start of the file, 0-based.
    public var offset: Int
    /// What the reader expected at `offset`, and what it found.
    public var expected: String

    public init(offset: Int, expected: String) {
        self.offset = offset
        self.expected = expected
    }

    public var description: String { "byte \(offset): \(expected)" }
}
