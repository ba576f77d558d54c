// SPDX-License-Identifier: GPL-3.0-or-later
import CLV2
import Glibc

/// The plugin's messages: through the host's `log:log` (log.h) when it gave one, else on
/// standard error. Each line names the plugin ("bendsynth: ...").
/// - Thread: any but render (the line is a Swift string: formatting allocates). The
///   render thread hands what it must report to the worker or counts it.
struct LV2Log: @unchecked Sendable {
    let log: UnsafeMutablePointer<LV2_Log_Log>?
    let error: LV2_URID
    let warning: LV2_URID
    let note: LV2_URID

    init(_ host: LV2Host) {
        log = host.log
        error = host.urid(LV2URI.logError)
        warning = host.urid(LV2URI.logWarning)
        note = host.urid(LV2URI.logNote)
    }

    func error(_ text: String) { write(error, text) }
    func warning(_ text: String) { write(warning, text) }
    func note(_ text: String) { write(note, text) }

    private func write(_ type: LV2_URID, _ text: String) {
        let line = "bendsynth: " + text + "\n"
        if let log { _ = clv2_log(log, type, line) } else { LV2Log.standardError(line) }
    }

    /// `line` on standard error (fd 2): without the host's log, or before it is known.
    static func standardError(_ line: String) {
        var line = line
        line.withUTF8 { _ = Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
