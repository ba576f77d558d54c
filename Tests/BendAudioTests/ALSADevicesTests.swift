// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
@testable import BendAudio

final class ALSADevicesTests: XCTestCase {
    /// (e) The configuration's PCM names include `null`, which opens for playback.
    func testListsNullPCMAndItOpens() throws {
        let pcms = try ALSADevices.playbackPCMs()
        let null = pcms.first { $0.name == "null" }
        XCTAssertNotNil(null, "names: \(pcms.map(\.name))")
        XCTAssertTrue(null?.description.hasPrefix("Discard all samples") ?? false, null?.description ?? "")
        XCTAssertNil(ALSADevices.probe(name: "null"))
        // Every listed name is unique.
        XCTAssertEqual(Set(pcms.map(\.name)).count, pcms.count)
    }

    func testProbeReportsWhyAPCMDoesNotOpen() {
        XCTAssertEqual(ALSADevices.probe(name: "nonexistent_pcm_xyz"), "snd_pcm_open: No such file or directory")
    }

    /// Cards as `aplay -l` lists them: each has a playback device name "hw:N,D". This
    /// machine has none, which must give an empty list, not an error.
    func testCardListingMatchesProcAsound() throws {
        let cards = try ALSADevices.playbackCards()
        let procCards = (try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8)) ?? ""
        if procCards.isEmpty || procCards.contains("no soundcards") {
            XCTAssertEqual(cards, [])
        }
        for c in cards {
            XCTAssertEqual(c.pcmName, "hw:\(c.card),\(c.device)")
            XCTAssertGreaterThanOrEqual(c.subdevices, 1)
        }
    }
}
