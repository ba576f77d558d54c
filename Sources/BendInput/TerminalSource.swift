// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import Glibc
import Synchronization

/// The pad in the terminal as an input source of `play`: a `TerminalInput` on standard
/// input and output whose status line shows the instrument (peak, voices, xruns, the
/// output's line). Play ends as it ends (`q`, Ctrl-C, hang-up).
public final class TerminalSource: InputSource, @unchecked Sendable {
    public let name = "terminal"
    public let endsPlay = true
    public var ownsTerminal: Bool { true }
    private var input: TerminalInput?
    private let failure = Mutex<String?>(nil)
    private let filter: (@Sendable (TerminalEvent) -> Bool)?
    private let deviceLine: (@Sendable () -> String?)?
    private let notice: (@Sendable () -> String?)?
    private let shown: (@Sendable (Bool) -> Void)?

    /// - Parameters:
    ///   - filter: sees each decoded event before the pad; true consumes it (`play
    ///     --bluetooth`: y/n answer invitations).
    ///   - deviceLine: a line shown instead of the output's, when it returns one (the
    ///     invitation question).
    ///   - notice: the notice to show now (peers' messages), if any.
    ///   - shown: told when the pad starts (`true`) and stops (`false`) being drawn.
    public init(filter: (@Sendable (TerminalEvent) -> Bool)? = nil, deviceLine: (@Sendable () -> String?)? = nil,
                notice: (@Sendable () -> String?)? = nil, shown: (@Sendable (Bool) -> Void)? = nil) {
        self.filter = filter
        self.deviceLine = deviceLine
        self.notice = notice
        self.shown = shown
    }

    /// Why the terminal failed (a read error), if it did. - Thread: any.
    public var failureDescription: String? { failure.withLock { $0 } }

    /// How long a mouse move glides (`ControlPort.glideMoves`), seconds: the time since
    /// the last report, within this. The terminal reports the pointer a cell at a time;
    /// sliding at 10–30 cells a second, a move glides over most of the time to the next.
    public static let moveGlide = 0.005...0.06

    /// - Throws: `InputSourceError(.runtime)` "cannot use the terminal: …".
    public func start(port: ControlPort, context: InputContext, finished: @escaping @Sendable () -> Void) throws {
        port.glideMoves(within: Self.moveGlide)
        let meters = context.meters, output = context.output, deviceLine = self.deviceLine, notice = self.notice
        let board = context.touchBoard, own = port.source, map = context.pitchMap, late = context.lateEvents
        let panicNotice = context.panicNotice
        let filter = Self.panicKey(after: self.filter, panic: context.panic)
        let input = TerminalInput(inputFD: STDIN_FILENO, pitchMap: context.pitchMap, tuning: context.tuning,
                                  toneNote: context.toneNote, status: { s in
            let m = meters.snapshot
            s.peak = Double(m.peak)
            s.limiterGain = Double(m.limiterGain)
            s.voices = m.voices
            s.xruns = output.xruns
            s.lateEvents = late?() ?? 0
            s.device = deviceLine?() ?? output.failureDescription.map { "stopped: \($0)" } ?? output.description
            s.notice = notice?() ?? panicNotice?()
            // The pad's own touches show the pitch that sounds: the port's rounding
            // (`--round`) moves it from under the finger; the board saw it.
            if let sounding = board?.touches(of: own) {
                for i in s.touches.indices {
                    if let t = sounding[s.touches[i].id] { s.touches[i].ratio = map.ratio(x: t.x) }
                }
            }
            s.others = board?.touches(excluding: own, at: m.position).map {
                PadStatus.Touch(id: $0.id, x: $0.x, y: $0.y, ratio: map.ratio(x: $0.x), gain: gain(y: $0.y), label: $0.mark)
            } ?? []
        }, filter: filter, onEvent: { port.send($0) }, onFinish: { [weak self] reason in
            if case .failed(let e) = reason { self?.failure.withLock { $0 = "\(e)" } }
            finished()
        })
        do { try input.start() } catch {
            throw InputSourceError(.runtime, "cannot use the terminal: \(error)")
        }
        self.input = input
        shown?(true)
    }

    /// `filter`, then Escape (pressed, not consumed by it) asks the instrument's panic: every
    /// source's touches end, not only the pad's own (which the pad ends itself).
    static func panicKey(after filter: (@Sendable (TerminalEvent) -> Bool)?,
                         panic: (@Sendable (String) -> Void)?) -> (@Sendable (TerminalEvent) -> Bool)? {
        guard let panic else { return filter }
        return { event in
            if let filter, filter(event) { return true }
            if case .key(let k) = event, k.key == .escape, k.kind == .press { panic("Escape on the terminal pad") }
            return false
        }
    }

    public func stop() {
        input?.stop()  // restores the terminal first: what stderr took is written after
        shown?(false)
    }
}
