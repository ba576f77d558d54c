// SPDX-License-Identifier: GPL-3.0-or-later
/// Where the pad's playing area is on the screen: its inner cells (inside the border),
/// 1-based like mouse reports.
/// - Thread: any (a value).
public struct PadGeometry: Sendable, Equatable {
    /// Column of the leftmost inner cell (1-based).
    public var left: Int
    /// Row of the top inner cell (1-based).
    public var top: Int
    /// Inner cells across, ≥ 1.
    public var width: Int
    /// Inner cells down, ≥ 1.
    public var height: Int

    public init(left: Int, top: Int, width: Int, height: Int) {
        self.left = left
        self.top = top
        self.width = max(width, 1)
        self.height = max(height, 1)
    }

    /// Pad coordinates of a cell: x = (column − left)/(width − 1) (0 at the left inner
    /// column, 1 at the right one), y = 1 − (row − top)/(height − 1) (1 on the top inner
    /// row, 0 on the bottom one), both clamped to 0…1 (a click on the border or outside
    /// plays the nearest edge). A one-cell-wide pad gives 0.5.
    public func point(column: Int, row: Int) -> (x: Double, y: Double) {
        (Self.fraction(column - left, width), 1 - Self.fraction(row - top, height))
    }

    /// The cell nearest to pad point (x, y) (x, y clamped to 0…1): inverse of `point`.
    public func cell(x: Double, y: Double) -> (column: Int, row: Int) {
        func clamp(_ v: Double) -> Double { v.isNaN ? 0.5 : min(max(v, 0), 1) }
        let column = left + Int((clamp(x) * Double(width - 1)).rounded())
        let row = top + Int(((1 - clamp(y)) * Double(height - 1)).rounded())
        return (column, row)
    }

    private static func fraction(_ offset: Int, _ size: Int) -> Double {
        guard size > 1 else { return 0.5 }
        return min(max(Double(offset) / Double(size - 1), 0), 1)
    }
}
