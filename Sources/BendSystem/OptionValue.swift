// SPDX-License-Identifier: GPL-3.0-or-later
/// An option's value read as a number in its range; the error names the option and the
/// range: "option '--rate': expected an integer in 8000…192000, got '5'".
public enum OptionValue {
    public static func integer(_ value: String?, option: String, in range: ClosedRange<Int>) throws -> Int {
        guard let value, let n = Int(value), range.contains(n) else {
            throw UsageError("option '--\(option)': expected an integer in \(range.lowerBound)…\(range.upperBound), got '\(value ?? "")'")
        }
        return n
    }

    public static func number(_ value: String?, option: String, in range: ClosedRange<Double>) throws -> Double {
        guard let value, let n = Double(value), n.isFinite, range.contains(n) else {
            throw UsageError("option '--\(option)': expected a number in \(range.lowerBound)…\(range.upperBound), got '\(value ?? "")'")
        }
        return n
    }
}
