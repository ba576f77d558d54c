import BendSystem
import Dispatch
import Glibc

/// `play --web` with the terminal pad: the pad starts after Enter, so the player can scan
/// the QR code first (the instrument plays meanwhile).
enum EnterPrompt {
    /// Waits for a line on standard input (Enter, or end of input) or for `finished`
    /// (SIGINT, SIGTERM, a source that ends play). - Returns: true when play is stopping.
    /// The terminal is still in cooked mode here: it is readable only once a whole line
    /// is typed, so the read after the wait never blocks.
    static func waitForEnterOrStop(_ finished: DispatchSemaphore) -> Bool {
        while true {
            if finished.wait(timeout: .now()) == .success { return true }
            let ready = (try? IOWait.wait(fd: STDIN_FILENO, for: .readable, timeout: 0.05)) ?? [.error]
            if !ready.isEmpty {
                _ = readLine()
                return false
            }
        }
    }
}
