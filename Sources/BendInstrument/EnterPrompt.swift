// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Glibc

/// `play --web` with the terminal pad: the pad starts after Enter, so the player can scan
/// the QR code first (the instrument plays meanwhile). A handler on standard input of an
/// `EventLoop` ("bendsynth enter") waits for the line; the terminal is still in cooked
/// mode, so the descriptor turns readable only once a whole line is typed (or at the end
/// of input), and the one read it makes never blocks.
final class EnterPrompt: @unchecked Sendable {
    private let loop: EventLoop

    /// Starts waiting; `entered` is called once, on the loop's thread, when the line comes.
    /// - Throws: `SystemError` when the loop cannot start. - Thread: setup.
    init(fd: Int32 = STDIN_FILENO, entered: @escaping @Sendable () -> Void) throws {
        let loop = try EventLoop(name: "bendsynth enter")
        loop.add(fd: fd, events: .readable) { [loop] _ in
            var line = [UInt8](repeating: 0, count: 4096)
            _ = read(fd, &line, line.count)  // the line (or 0 at the end of input): taken off the terminal
            entered()
            loop.stop()  // from its own handler: the loop ends when this returns
        }
        try loop.start()
        self.loop = loop
    }

    /// Stops waiting (the line may never come). - Thread: any but the loop's.
    func cancel() { loop.stop() }
}
