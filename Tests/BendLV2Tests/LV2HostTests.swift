// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest
import BendLV2Host
import BendTestSupport

/// The test host itself, on a plugin it did not write: Debian's synthv1 plays the MIDI
/// note the host sends at its frame, at the note's pitch.
final class LV2HostTests: XCTestCase {
    func testSynthv1PlaysTheNoteTheHostSends() throws {
        let folder = try LV2TestFolder()
        let host = try LV2PluginHost(uri: "http://synthv1.sourceforge.net/lv2", lv2Path: "/usr/lib/lv2", rate: 48_000, maxBlock: 256,
                                     stateFolder: folder.path)
        var out: [Float] = []
        for block in 0..<200 {
            if block == 10 { host.midi([0x90, 69, 100], at: 100) }
            out += host.runInterleaved(frames: 256)
        }
        let left = Measure.channel(out, 0)
        XCTAssertEqual(Measure.rms(left[0..<2560]), 0, "silent before the note")
        XCTAssertEqual(left[0..<(2560 + 100)].reduce(0) { max($0, abs($1)) }, 0, "nothing before the note's frame")
        XCTAssertGreaterThan(Measure.dB(Measure.rms(left[(48_000 / 2)...])), -40)
        XCTAssertEqual(Measure.peakFrequency(Array(left[(48_000 / 2)...]), rate: 48_000), 440, accuracy: 2)
    }
}

/// A folder of its own for a test (the plugin's state files), removed at the end.
final class LV2TestFolder {
    let url: URL
    var path: String { url.path }
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("bendsynth-lv2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}
