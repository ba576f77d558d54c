/// What a touch does: starts, moves or ends.
public enum TouchPhase: String, Sendable, Equatable {
    case down, move, up
}

/// One input event from any source, in pad coordinates.
///
/// The pad: x in 0…1 from the left edge to the right, y in 0…1 from the bottom edge to
/// the top; tilt in −1 (all left) … +1 (all right).
public enum ControlEvent: Sendable, Equatable {
    /// A touch `id` (the source's own id) starts, moves or ends at (x, y).
    /// `x` and `y` are ignored for `.up`.
    case touch(id: UInt32, phase: TouchPhase, x: Double, y: Double)
    /// The pan of every voice, −1…+1.
    case tilt(Double)
}
