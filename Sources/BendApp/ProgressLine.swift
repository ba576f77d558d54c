// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import Glibc

/// `render`'s progress line on standard error, redrawn in place (`\r`, erase to the end
/// of the line): percent, speed as a multiple of real time, time left. Only on a
/// terminal; the last draw is cleared so the summary line takes its place.
struct ProgressLine {
    let enabled: Bool

    func draw(_ p: RenderProgress) {
        guard !p.done else {
            write("\r\u{1B}[K")
            return
        }
        let left = p.secondsLeft
        let leftText = left >= 60 ? String(format: "%d min %02d s", Int(left) / 60, Int(left) % 60) : String(format: "%.0f s", left.rounded(.up))
        write(String(format: "\rrender: %3.0f%% — %.1f× real time — %@ left\u{1B}[K", p.fraction * 100, p.speed, leftText))
    }

    private func write(_ s: String) {
        _ = s.withCString { Glibc.write(2, $0, strlen($0)) }
    }
}
