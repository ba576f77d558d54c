// SPDX-License-Identifier: GPL-3.0-or-later
/// Holding a key in a terminal that reports no key releases (no kitty protocol: xterm,
/// GNOME Terminal, Konsole, tmux, …). Such a terminal sends a held key as a press, then,
/// after the keyboard's initial repeat delay (typically 250–600 ms; X11's default 660 ms),
/// the same press again about 30 times a second (auto-repeat) until the key is let go.
/// The presses of one key that come that close together form a *run*:
///
/// * a run starts with a press of the key more than `initialWindow` after the previous one
///   (or its first ever); that press toggles: it starts the key's note, or stops it when it
///   is sounding (a tap to stop a latched note);
/// * a press within `initialWindow` of the run's first press, or within `repeatWindow` of
///   the run's latest repeat, is a repeat: it never starts or stops anything;
/// * a note its run started is *held* once a repeat comes: it ends `repeatWindow` after the
///   run's last repeat (when the repeats stop, the key was let go); with no repeat (a tap)
///   it stays on — latched — until a later press stops it.
///
/// So a tap latches a note and a second tap stops it (a second tap within `initialWindow`
/// is taken as a repeat: the note then ends `repeatWindow` after it, so it stops either
/// way); a held key plays one note for as long as it is held, ending `repeatWindow` after
/// its last repeat; holding the key that stops a note keeps it stopped.
///
/// Times are monotonic nanoseconds. - Thread: one thread at a time (a value type).
public struct KeyRepeatRuns: Sendable, Equatable {
    /// Nanoseconds after a run's first press within which the next press is a repeat:
    /// longer than the initial repeat delay of common keyboards (250–660 ms). Default 700 ms.
    public var initialWindow: UInt64
    /// Nanoseconds after a repeat within which the next press is a repeat too, and after
    /// the last repeat at which a held note ends: several repeat intervals (~33 ms at
    /// 30/s), so a late repeat does not end it. Default 150 ms.
    public var repeatWindow: UInt64

    struct Run: Sendable, Equatable {
        /// When the run's latest press came.
        var last: UInt64
        /// Presses after the first.
        var repeats: Int
        /// True when the run's first press started the note (false: it stopped it).
        var started: Bool
    }
    private var runs: [UInt32: Run] = [:]

    public init(initialWindow: UInt64 = 700_000_000, repeatWindow: UInt64 = 150_000_000) {
        self.initialWindow = initialWindow
        self.repeatWindow = repeatWindow
    }

    /// What a press of key `key` at `nanos` does.
    public enum Press: Sendable, Equatable {
        /// The first press of a run: start the note (`sounding` was false) or stop it.
        case toggle
        /// An auto-repeat: nothing changes.
        case `repeat`
    }

    /// A press of `key` (an id of the caller's) at `nanos`, the note sounding or not.
    /// Call `expired(at:)` first so runs that ended by `nanos` are gone.
    public mutating func press(_ key: UInt32, at nanos: UInt64, sounding: Bool) -> Press {
        if var run = runs[key], nanos <= end(of: run) {
            run.last = nanos
            run.repeats += 1
            runs[key] = run
            return .repeat
        }
        runs[key] = Run(last: nanos, repeats: 0, started: !sounding)
        return .toggle
    }

    /// Removes the runs that ended by `nanos`; returns the keys whose held note ends now
    /// (runs that started their note and had a repeat), in key order.
    public mutating func expired(at nanos: UInt64) -> [UInt32] {
        var ended: [UInt32] = []
        for (key, run) in runs where nanos > end(of: run) {
            runs[key] = nil
            if run.started && run.repeats > 0 { ended.append(key) }
        }
        return ended.sorted()
    }

    /// Forgets every run.
    public mutating func removeAll() { runs.removeAll() }

    /// When `expired(at:)` next has something to do, or nil when no run is open.
    public var nextDeadline: UInt64? { runs.values.map { end(of: $0) &+ 1 }.min() }

    /// The last moment a press still belongs to `run`.
    private func end(of run: Run) -> UInt64 {
        run.last &+ (run.repeats == 0 ? initialWindow : repeatWindow)
    }
}
