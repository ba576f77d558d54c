// SPDX-License-Identifier: GPL-3.0-or-later
import BendMIDI
import BendTestSupport
import XCTest

final class MIDIInputFeedTests: XCTestCase {
    /// Bytes fed with a stream frame take effect at that frame, at the note's pitch
    /// (bend included), and releaseAll ends them.
    func testFeedIsSampleAccurateAndInTune() {
        let h = RenderHarness(voices: 8, period: 256, rate: 48_000)
        defer { h.free() }
        let feed = MIDIInputFeed(port: h.port, toneNote: 69)
        // Note 76 (E5) bent −1 semitone at ±2 = D#5 (622.25 Hz), at frame 4801 (inside a period).
        feed.receive([0xE0, 0x00, 0x20], atFrame: 4801)
        feed.receive([0x90, 76, 127], atFrame: 4801)
        XCTAssertEqual(feed.heldNotes, 1)
        let left = Measure.channel(h.render(frames: 48_000), 0)
        XCTAssertTrue(left[..<4801].allSatisfy { $0 == 0 }, "silent before the event's frame")
        XCTAssertGreaterThan(left[4801..<4901].map(abs).max()!, 0.001, "sounding from its frame")
        let f = Measure.peakFrequency(Array(left[9600...]), rate: 48_000)
        XCTAssertEqual(f / (440 * pow(2, 6 / 12)), 1, accuracy: 0.001)
        feed.releaseAll()
        XCTAssertEqual(feed.heldNotes, 0)
        XCTAssertTrue(h.port.activeTouches.isEmpty)
    }
}
