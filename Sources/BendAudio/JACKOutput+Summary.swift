// SPDX-License-Identifier: GPL-3.0-or-later
/// What play asks of a JACK client as an `AudioOutput`: its MIDI ports, and the end-of-play
/// line on its server's period changes.
extension JACKOutput {
    public func openMIDI(input: Bool, output: Bool) throws -> JACKMIDIRings? {
        try enableMIDI(input: input, output: output)
    }

    public var summaryLines: [String] {
        guard bufferSizeChanges > 0 else { return [] }
        let times = bufferSizeChanges == 1 ? "once" : "\(bufferSizeChanges) times"
        return ["the JACK server changed its period \(times) during the run: \(periodFrames) frames at the start, \(currentPeriodFrames) at the end"
                + (currentPeriodFrames > periodFrames ? " (rendered in steps of \(periodFrames))" : "")]
    }
}
