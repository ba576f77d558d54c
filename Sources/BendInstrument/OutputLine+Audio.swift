// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendEngine
import BendSystem

extension OutputLine {
    /// An `AudioOutput` as sources see it: its line, xruns (none paced by the clock: no
    /// device to run late) and failure when asked.
    convenience init(_ output: AudioOutput) {
        self.init(description: { output.description }, xruns: { output.isPaced ? nil : output.xruns }, failure: { output.failureDescription })
    }
}

extension StreamClock {
    /// The stream frame of now: the clock's stamp of now less the period it stamps live
    /// events ahead (events before it have come or are coming this period).
    func frameOfNow() -> UInt64 {
        let stamp = stamp(nanos: MonotonicClock.nanos()), period = UInt64(periodFrames)
        return stamp > period ? stamp - period : 0
    }
}

extension InputContext {
    /// The context of a source playing into `output` from `mixer` (a test's that starts
    /// one source by hand).
    public init(mixer: Mixer, output: AudioOutput, pitchMap: PitchMap, rate: Double, tuning: Tuning? = nil) {
        self.init(meters: InstrumentMeters(mixer: mixer), output: OutputLine(output), pitchMap: pitchMap, rate: rate, tuning: tuning)
    }
}
