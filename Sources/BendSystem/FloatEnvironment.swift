// SPDX-License-Identifier: GPL-3.0-or-later
import CFloatEnv

/// Denormal handling of the calling thread's SSE unit (MXCSR). Denormal floats (below
/// 1.2·10⁻³⁸) take a slow microcode path on x86; with FTZ and DAZ set, results and inputs
/// that small count as 0, which no audible signal notices.
public enum FloatEnvironment {
    /// Sets flush-to-zero and denormals-are-zero for the rest of the calling thread's life.
    /// Called once at the start of the render thread, never in the render loop.
    /// - Thread: render (at its start).
    public static func flushDenormalsOnThisThread() {
        bend_set_mxcsr(bend_get_mxcsr() | BEND_MXCSR_FTZ_DAZ)
    }

    /// Sets flush-to-zero and denormals-are-zero on the calling thread and returns its
    /// previous MXCSR, for `restore(_:)` (offline renders on a caller's thread).
    /// - Thread: any.
    public static func flushDenormals() -> UInt32 {
        let saved = bend_get_mxcsr()
        bend_set_mxcsr(saved | BEND_MXCSR_FTZ_DAZ)
        return saved
    }

    /// Puts back the MXCSR `flushDenormals()` returned. - Thread: the same thread.
    public static func restore(_ saved: UInt32) { bend_set_mxcsr(saved) }
}
