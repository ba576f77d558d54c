// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import Glibc

/// Reads the terminal on an `EventLoop` ("bendsynth terminal"): bytes → `TerminalDecoder`
/// → (an optional filter, e.g. the remote's text line) → `TerminalPad` → control events,
/// all on the loop's thread, which is the control port's one producer. The decoder's
/// timeouts (a lone ESC, a cut-short sequence, a stuck paste) and the pad's (a key held
/// by auto-repeat ends when its repeats stop) are a one-shot timer on the same loop,
/// armed at the earlier of `decoder.nextDeadline` and `pad.nextDeadline`.
///
/// It finishes on `q`/Ctrl-C (`.quit`), when the terminal goes away (`.hangUp`: POLLHUP,
/// read 0 or EIO), on a read error (`.failed`) or on `stop()` (`.stopped`); in every case
/// it first sends an `.up` for each held touch, then calls `onFinish` on its thread.
final class TerminalReader: @unchecked Sendable {
    private let inputFD: Int32
    private let loop: EventLoop
    private let board: PadBoard
    private let filter: (@Sendable (TerminalEvent) -> Bool)?
    private let onEvent: @Sendable (ControlEvent) -> Void
    private let onFinish: @Sendable (TerminalInput.Finish) -> Void
    // The loop's thread only:
    private var decoder: TerminalDecoder
    private var pad: TerminalPad
    private var handler: EventLoop.Handler?
    private var deadline: (timer: EventLoop.Timer, at: UInt64)?
    private var finished = false
    private var buffer = [UInt8](repeating: 0, count: 4096)

    /// - Parameters:
    ///   - board: where the pad's touches are published for the view (and its geometry read).
    ///   - filter: sees each decoded event before the pad; true consumes it.
    ///   - onFinish: once, on the reader's thread, after the last `onEvent`.
    ///   - keys: what the letter keys play (`KeyLayout`).
    init(inputFD: Int32, decoder: TerminalDecoder, board: PadBoard, keys: KeyLayout,
         filter: (@Sendable (TerminalEvent) -> Bool)?, onEvent: @escaping @Sendable (ControlEvent) -> Void,
         onFinish: @escaping @Sendable (TerminalInput.Finish) -> Void) throws {
        self.inputFD = inputFD
        self.decoder = decoder
        self.board = board
        self.filter = filter
        self.onEvent = onEvent
        self.onFinish = onFinish
        pad = TerminalPad(geometry: board.withLock { $0.geometry })
        pad.keys = keys
        loop = try EventLoop(name: "bendsynth terminal")
    }

    /// Starts reading. - Throws: `SystemError` naming pthread_create. - Thread: setup.
    func start() throws {
        handler = loop.add(fd: inputFD, events: .readable) { [weak self] events in self?.readable(events) }
        try loop.start()
    }

    /// Finishes (`.stopped`, unless it finished already) and waits for the reader's
    /// thread; on that thread (inside a callback) it only asks. - Thread: any.
    func stop() {
        loop.execute { [weak self] in self?.finish(.stopped) }
        loop.stop()
    }

    /// Runs on the reader's thread when it finishes, after the last `onEvent` and before
    /// `onFinish` (`TerminalInput` stops the view and restores the terminal there).
    /// Set before `start`.
    var beforeFinish: @Sendable () -> Void = {}

    // MARK: - The loop's thread

    private func readable(_ events: IOEvents) {
        guard events.contains(.readable) else {
            if !events.isDisjoint(with: [.hangUp, .error]) { finish(.hangUp) }
            return
        }
        let count: Int
        do {
            count = try systemCall("read(terminal fd \(inputFD))") { read(inputFD, &buffer, buffer.count) }
        } catch where error.code == EAGAIN {
            return
        } catch where error.code == EIO {
            return finish(.hangUp)
        } catch {
            return finish(.failed(error))
        }
        guard count > 0 else { return finish(.hangUp) }
        let now = MonotonicClock.nanos()
        deliver(decoder.feed(buffer[0..<count], at: now), at: now)
    }

    /// Hands decoded events to the pad (through the filter), publishes the pad for the
    /// view and re-arms the decoder's timeout.
    private func deliver(_ events: [TerminalEvent], at nanos: UInt64) {
        let geometry = board.withLock { $0.geometry }
        if geometry != pad.geometry { pad.geometry = geometry }
        for c in pad.tick(at: nanos) { onEvent(c) }
        for event in events {
            if let filter, filter(event) { continue }
            for c in pad.handle(event, at: nanos) { onEvent(c) }
            if pad.quitRequested { return finish(.quit) }
        }
        publish()
        armDeadline()
    }

    private func armDeadline() {
        let next = [decoder.nextDeadline, pad.nextDeadline].compactMap { $0 }.min()
        if next == deadline?.at { return }
        if let d = deadline { loop.cancel(d.timer) }
        deadline = nil
        guard let next else { return }
        let timer = loop.schedule(at: next) { [weak self] in
            guard let self else { return }
            self.deadline = nil
            let now = MonotonicClock.nanos()
            self.deliver(self.decoder.tick(at: now), at: now)
        }
        deadline = (timer, next)
    }

    private func publish() {
        let touches = pad.touches, tilt = pad.tilt, keysHold = pad.reportsKeyReleases, sustained = pad.sustained
        board.withLock {
            $0.touches = touches
            $0.tilt = tilt
            $0.keysHold = keysHold
            $0.sustained = sustained
        }
    }

    private func finish(_ reason: TerminalInput.Finish) {
        guard !finished else { return }
        finished = true
        if let handler { loop.remove(handler) }
        if let d = deadline { loop.cancel(d.timer) }
        for c in pad.end() { onEvent(c) }
        publish()
        beforeFinish()
        onFinish(reason)
        loop.stop()  // on the loop's thread: the loop ends after this turn
    }
}
