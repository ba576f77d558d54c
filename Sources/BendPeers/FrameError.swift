// SPDX-License-Identifier: GPL-3.0-or-later
/// Why bytes could not be decoded as a frame; each maps to the `CloseReason` the peer
/// is closed with.
public struct FrameError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: CloseReason
    /// What was wrong, e.g. "TOUCH: x = 1.5, expected 0…1".
    public var detail: String

    public init(_ reason: CloseReason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "\(reason): \(detail)" }
}
