// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest
@testable import BendAudio

/// The one counter type the ALSA and JACK outputs keep their xruns (and other counts) in.
final class AtomicCountersTests: XCTestCase {
    /// Xruns counted from several threads at once (as JACK's xrun callback and ALSA's
    /// writer may run beside a reader) add up; each slot is its own; `set` overwrites.
    func testXrunsCountedFromManyThreadsAddUp() {
        let alsa = ALSAPlaybackCounters()
        let jack = JACKCounters()
        defer { alsa.deallocate(); jack.deallocate() }
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<10_000 {
                alsa.add(.xruns)
                jack.add(.xruns)
            }
        }
        XCTAssertEqual(alsa.get(.xruns), 40_000)
        XCTAssertEqual(jack.get(.xruns), 40_000)
        XCTAssertTrue(ALSACounter.allCases.filter { $0 != .xruns }.allSatisfy { alsa.get($0) == 0 }, "only the xruns slot moved")
        XCTAssertTrue(JACKCounter.allCases.filter { $0 != .xruns }.allSatisfy { jack.get($0) == 0 }, "only the xruns slot moved")
        alsa.add(.retries, 3)
        jack.set(.periodFrames, 512)
        jack.set(.periodFrames, 256)
        XCTAssertEqual(alsa.get(.retries), 3)
        XCTAssertEqual(jack.get(.periodFrames), 256)
    }
}
