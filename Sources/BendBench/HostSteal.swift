// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc

/// The CPU time the hypervisor gave to other guests while this machine's virtual CPUs
/// wanted to run (/proc/stat's `steal`, summed over all CPUs): on a shared virtual
/// machine, the figure that tells a slow run from a slow program. Benches print it beside
/// latencies, as the soak does.
enum HostSteal {
    /// Seconds stolen since boot; nil where /proc/stat has no steal column.
    static func seconds() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return nil }
        let fields = line.split(separator: " ")
        // cpu user nice system idle iowait irq softirq steal …
        guard fields.count > 8, let ticks = Double(fields[8]) else { return nil }
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
