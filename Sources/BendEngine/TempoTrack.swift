// SPDX-License-Identifier: GPL-3.0-or-later
/// The mixer's tempo: the clocks a tempo source publishes (`Mixer.publishTempo`: a
/// bounded SPSC ring of `TempoClock` values, the control → render path of the touch
/// events), and the clock the render thread follows now. The render thread takes each
/// clock at its frame (`Mixer+Arpeggio.swift`): the arpeggiator's grid moves at once, the
/// delay's note values at the next period.
struct TempoTrack: @unchecked Sendable {
    /// Clocks in frame order. Producer: the tempo source's thread (a plugin's render
    /// thread, the offline render loop); consumer: render.
    let ring: SPSCRing<TempoClock>
    /// The clock last taken (true from its frame on). Owner: render; setup starts it at
    /// the configuration's internal tempo.
    let clock: UnsafeMutablePointer<TempoClock>

    /// - Thread: setup.
    init(bpm: Double, rate: Double) {
        ring = SPSCRing(capacity: 256)
        clock = .allocate(capacity: 1)
        clock.initialize(to: TempoClock(bpm: min(max(bpm, 1), 1000), rate: rate))
    }

    func deallocate() { ring.deallocate(); clock.deallocate() }
}

extension Mixer {
    /// Hands the render thread a clock, true from `clock.frame` on (one a period, or one
    /// at each change; in frame order). A full ring drops it and counts the drop.
    /// - Thread: the one tempo producer (a control thread, or a plugin's render thread
    ///   before it renders the block).
    @_noLocks @discardableResult
    public func publishTempo(_ clock: TempoClock) -> Bool { tempoTrack.ring.push(clock) }
}
