// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// One touch's rounding (see `PitchRounding`): raw pitch in, rounded pitch out, both in
/// cents above the tuning's root, driven by the touch's moves and by time.
///
/// `hold`: the raw pitch p goes through two one-pole low-passes (`PitchRounding.centreHz`)
/// to give the centre c. The output is p + a·(s − c), where s is the latched step's
/// cents and a (0…1) the hold amount: a rises by 1/rate per second while the touch rests
/// (c slower than `restSpeed`, and still nearest to s), and falls as fast when it moves;
/// at a = 0 the step is let go and the next rest latches the then-nearest step. So the
/// centre lands on the step, the vibrato p − c is kept, and the output never jumps:
/// it changes by at most (half a step)/rate per second on top of the finger's own motion.
/// - Thread: one (the port's); a value type.
public struct PitchRounder: Sendable {
    public let rounding: PitchRounding
    /// Raw pitch, cents above the root (the latest move).
    public private(set) var raw: Double
    /// Seconds of the latest update.
    public private(set) var time: Double
    /// The centre's two low-pass stages, cents.
    private var stage1: Double
    public private(set) var centre: Double
    /// |dc/dt| of the centre, cents per second.
    public private(set) var speed = 0.0
    /// Hold amount, 0…1.
    public private(set) var amount = 0.0
    /// The step held (hold), nil when let go.
    public private(set) var step: Int?
    /// The start's rounding offset, cents (initial).
    private var offset = 0.0
    /// A move that glides (`move(cents:time:glide:)`): raw goes linearly from `from` to
    /// `to` cents between `start` and `end` seconds; nil once there.
    private var glide: (from: Double, to: Double, start: Double, end: Double)?

    /// Lowest raw pitch considered, cents (a ratio near 0 on the linear map).
    static let floorCents = -12_000.0
    /// Longest integration step, seconds.
    static let substep = 0.001

    /// A touch going down at `cents` (raw) at `time` seconds.
    public init(_ rounding: PitchRounding, cents: Double, time: Double) {
        self.rounding = rounding
        let p = cents.isFinite ? max(cents, Self.floorCents) : Self.floorCents
        raw = p
        self.time = time
        stage1 = p
        centre = p
        let scale = rounding.tuning.scale
        let s = scale.nearestStep(cents: p)
        switch rounding.mode {
        case .off: break
        case .initial: offset = scale.cents(ofStep: s) - p
        case .hold:
            step = s
            amount = 1
        }
    }

    /// The rounded pitch now, cents above the root.
    public var output: Double {
        switch rounding.mode {
        case .off: raw
        case .initial: raw + offset
        case .hold: raw + (step.map { amount * (rounding.tuning.scale.cents(ofStep: $0) - centre) } ?? 0)
        }
    }

    /// The touch moved to `cents` (raw) at `time`: time advances first (with the old
    /// pitch held until now), then the new pitch applies.
    /// - Parameter glide: seconds the raw pitch takes to get there, linearly (a source
    ///   whose reports are coarser than the finger: the terminal's mouse, a cell at a
    ///   time); 0: at once.
    public mutating func move(cents: Double, time t: Double, glide seconds: Double = 0) {
        advance(to: t)
        let p = cents.isFinite ? max(cents, Self.floorCents) : Self.floorCents
        if seconds > 0, rounding.mode == .hold {
            glide = (raw, p, t, t + seconds)
        } else {
            glide = nil
            raw = p
        }
    }

    /// The raw pitch of a gliding move at `t` seconds (ends the glide there).
    private mutating func glideRaw(at t: Double) {
        guard let g = glide else { return }
        if t >= g.end {
            raw = g.to
            glide = nil
        } else {
            raw = g.from + (g.to - g.from) * (t - g.start) / (g.end - g.start)
        }
    }

    /// Advances to `time` seconds with no new move (the port's ticks); a gliding move's
    /// raw pitch goes on.
    public mutating func advance(to t: Double) {
        guard rounding.mode == .hold, t > time else {
            time = max(time, t)
            return
        }
        var left = t - time
        var now = time
        time = t
        // After 2 s without a tick the filters have settled: skip to the end state.
        if left > 2 {
            glideRaw(at: t)
            stage1 = raw
            centre = raw
            speed = 0
            left = 0.5
        }
        let tau = 1 / (2 * Double.pi * PitchRounding.centreHz)
        let scale = rounding.tuning.scale
        while left > 1e-12 {
            let h = min(left, Self.substep)
            left -= h
            now += h
            glideRaw(at: now)
            let k = 1 - exp(-h / tau)
            stage1 += (raw - stage1) * k
            let before = centre
            centre += (stage1 - centre) * k
            speed = abs(centre - before) / h
            let rests = speed <= PitchRounding.restSpeed
            if let s = step {
                let nearest = scale.nearestStep(cents: centre)
                let strayed = nearest != s
                    && abs(centre - scale.cents(ofStep: s)) - abs(centre - scale.cents(ofStep: nearest)) > PitchRounding.hysteresisCents
                if rests && !strayed {
                    amount = min(1, amount + h / rounding.rate)
                } else {
                    amount -= h / rounding.rate
                    if amount <= 0 {
                        amount = 0
                        step = nil
                    }
                }
            } else if rests {
                step = scale.nearestStep(cents: centre)
                amount = 0
            }
        }
    }
}
