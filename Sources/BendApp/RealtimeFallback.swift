import BendRTKit
import BendSystem

/// Installs RTKit as the runtime's way to real-time priority when SCHED_FIFO is refused
/// (SystemThread asks it with the render thread's kernel id; the thread's note says once
/// which priority it got).
enum RealtimeFallback {
    static func install() {
        SystemThread.setRealtimeFallback { tid, priority in
            switch RTKitClient.makeThreadRealtime(tid: tid, priority: priority) {
            case .granted(let p): return .granted(priority: p)
            case .refused(let why): return .refused(why)
            }
        }
    }
}
