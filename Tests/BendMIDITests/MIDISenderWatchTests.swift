// SPDX-License-Identifier: GPL-3.0-or-later
import BendMIDI
import BendTestSupport
import XCTest

/// When the last sender of a MIDI input goes, its notes end (issue 38 item 4): the
/// decision on synthetic ALSA sequencer announcements (this machine has no sequencer)
/// and JACK connection counts, and the feed ending the held notes through a real port.
final class MIDISenderWatchTests: XCTestCase {
    typealias S = MIDISenderWatch.Sender
    let ours = S(client: 128, port: 0)
    let keyboard = S(client: 24, port: 0), sequencer = S(client: 130, port: 1)

    /// Applies announcements in order; the result of each (true: the notes end).
    func decide(_ announcements: [MIDISenderWatch.Announcement]) -> [Bool] {
        var watch = MIDISenderWatch()
        return announcements.map { a in MIDISenderWatch.event(of: a, ours: ours).map { watch.apply($0) } ?? false }
    }

    func testTheLastSenderGoingEndsTheNotes() {
        // Two subscribers; the first unsubscribes (one is left), the second's client exits.
        XCTAssertEqual(decide([.portSubscribed(sender: keyboard, dest: ours), .portSubscribed(sender: sequencer, dest: ours),
                               .portUnsubscribed(sender: keyboard, dest: ours), .clientExit(S(client: 130, port: 0))]),
                       [false, false, false, true])
        // A port that exits, its client still there.
        XCTAssertEqual(decide([.portSubscribed(sender: keyboard, dest: ours), .portExit(keyboard)]), [false, true])
        // Subscriptions between other ports, the announce port's own, and exits of
        // clients that never sent: nothing ends.
        XCTAssertEqual(decide([.portSubscribed(sender: MIDISenderWatch.systemAnnounce, dest: ours),
                               .portSubscribed(sender: keyboard, dest: S(client: 129, port: 0)),
                               .portUnsubscribed(sender: MIDISenderWatch.systemAnnounce, dest: ours),
                               .clientExit(S(client: 131, port: 0))]), [false, false, false, false])
        // With no sender at all, an unsubscription of a stranger ends nothing.
        XCTAssertEqual(decide([.portUnsubscribed(sender: keyboard, dest: ours)]), [false])
        // JACK: connection counts after each port-connect callback.
        var jack = MIDISenderWatch()
        XCTAssertEqual([1, 2, 1, 0, 0, 1, 0].map { jack.apply(.connections($0)) }, [false, false, false, true, false, false, true])
    }

    /// The feed: a note held (and one held only by the pedal) on a real port, the last
    /// sender gone → both end and the pedal lets go; the count of notes said.
    func testTheFeedEndsItsNotesWhenTheLastSenderGoes() {
        let harness = RenderHarness()
        defer { harness.free() }
        let port = harness.port
        let feed = MIDIInputFeed(port: port)
        XCTAssertNil(feed.senders(.subscribed(keyboard)))
        feed.receive([0xB0, 64, 127, 0x90, 60, 100, 0x90, 64, 100, 0x80, 64, 0], atFrame: 0)
        XCTAssertEqual(port.activeTouches.count, 1, "note 60 down; 64 held by the pedal")
        XCTAssertNil(feed.senders(.subscribed(sequencer)))
        XCTAssertNil(feed.senders(.unsubscribed(sequencer)), "one sender left")
        _ = harness.render(frames: 4800)
        XCTAssertEqual(harness.mixer.activeVoices, 2, "both notes sound")
        XCTAssertEqual(feed.senders(.clientExited(client: 24), atFrame: 256), 1)
        XCTAssertEqual(port.activeTouches.count, 0)
        XCTAssertEqual(feed.heldNotes, 0)
        // Rendered: the voices end (released, then silent after the 8 ms release).
        _ = harness.render(frames: 48_000)
        XCTAssertEqual(harness.mixer.activeVoices, 0)
    }
}
