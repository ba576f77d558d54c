// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendApp
import BendInstrument
import BendAudio
import BendControl
import BendEngine
import BendPeers
import BendSystem
import Glibc
import Synchronization
import XCTest

/// `play --listen` with the pad: peers' TEXT and comings and goings go on the pad's
/// status area (not over it on stderr); without the pad, to stderr.
final class PadNoticesTests: XCTestCase {
    func testNoticeShowsOnThePadForItsTimeAndGoesToTheFallbackWithoutIt() {
        let fallen = Mutex<[String]>([])
        let notices = PadNotices(shownFor: 5, fallback: { line in fallen.withLock { $0.append(line) } })
        notices.post("before the pad")
        XCTAssertNil(notices.current())
        notices.padShown(true)
        notices.post("message from B:\nhello")
        let now = MonotonicClock.nanos()
        XCTAssertEqual(notices.current(now: now), "message from B: hello")
        XCTAssertEqual(notices.current(now: now + 4_900_000_000), "message from B: hello")
        XCTAssertNil(notices.current(now: now + 5_100_000_000), "gone after 5 s")
        notices.padShown(false)
        XCTAssertNil(notices.current(now: now))
        notices.post("after the pad")
        XCTAssertEqual(fallen.withLock { $0 }, ["before the pad", "after the pad"])
    }

    /// A real peer session over loopback into a `PeerSource` whose pad is "drawn": the
    /// TEXT arrives as a notice with the sender's name, and so do its coming and going.
    func testPeerTextReachesTheInstrumentsStatusAsANoticeWithTheSendersName() throws {
        let fallen = Mutex<[String]>([])
        let notices = PadNotices(fallback: { line in fallen.withLock { $0.append(line) } })
        notices.padShown(true)
        let source = PeerSource(listening: try PeerOptions.address("127.0.0.1:0"), key: nil)
        source.notices = notices
        let tone = ToneTable(samples: [Float](repeating: 0, count: 64), rate: 48_000)
        defer { tone.deallocate() }
        let mixer = Mixer(configuration: MixerConfiguration(rate: 48_000, maxPeriodFrames: 256, voices: 8), tone: tone)
        defer { mixer.deallocate() }
        let output = PacedOutput(rate: 48_000, periodFrames: 256)
        let port = ControlPort(mixer: mixer, pitchMap: .linear, clock: nil)
        try source.start(port: port, context: InputContext(mixer: mixer, output: output, pitchMap: .linear, rate: 48_000)) {}
        defer { source.stop() }
        let address = try XCTUnwrap(source.boundAddress)

        let remote = try PeerSession(configuration: .init(displayName: "Ada", role: .client))
        defer { remote.stop() }
        _ = try remote.connect(to: address)
        XCTAssertTrue(Poll.until { notices.current()?.hasSuffix("connected") == true }, notices.current() ?? "no notice")
        XCTAssertTrue(notices.current()?.contains("'Ada'") == true, notices.current() ?? "")
        remote.send(.text("play softer"))
        XCTAssertTrue(Poll.until { notices.current() == "message from Ada: play softer" }, notices.current() ?? "no notice")
        remote.disconnectFromAllPeers()
        XCTAssertTrue(Poll.until { notices.current()?.contains("left: normal") == true }, notices.current() ?? "no notice")
        XCTAssertEqual(fallen.withLock { $0 }, [], "nothing went to stderr while the pad was drawn")
    }
}
