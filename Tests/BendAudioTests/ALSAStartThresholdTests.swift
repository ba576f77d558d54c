// SPDX-License-Identifier: GPL-3.0-or-later
import CALSA
import Glibc
import XCTest
@testable import BendAudio

/// RW-41 step 7: after a recovery the stream starts again at once — the software
/// start threshold is one period, not the default full buffer (which leaves ~a buffer of
/// silence after each xrun and can underrun again before it starts: the "death spiral").
/// Measured on alsa-lib's `null` PCM configured as `ALSAOutput` configures a device: the
/// stream is RUNNING after one period written, both at the start and after a recovery
/// (`snd_pcm_recover` with −EPIPE: a prepare).
final class ALSAStartThresholdTests: XCTestCase {
    func testTheStreamStartsAfterOnePeriodAndAgainAfterARecovery() throws {
        var handle: OpaquePointer?
        XCTAssertEqual(snd_pcm_open(&handle, "null", SND_PCM_STREAM_PLAYBACK, 0), 0)
        let pcm = try XCTUnwrap(handle)
        defer { snd_pcm_close(pcm) }
        let granted = try ALSAOutput.configure(pcm, device: "null", rate: 48_000, periodFrames: 256, periods: 3)
        XCTAssertEqual(granted.periodFrames, 256)
        XCTAssertEqual(granted.bufferFrames, 768, "three periods: a full buffer would be three writes")

        var sw: OpaquePointer?
        XCTAssertEqual(snd_pcm_sw_params_malloc(&sw), 0)
        defer { snd_pcm_sw_params_free(sw) }
        XCTAssertEqual(snd_pcm_sw_params_current(pcm, sw), 0)
        var threshold: snd_pcm_uframes_t = 0
        XCTAssertEqual(snd_pcm_sw_params_get_start_threshold(sw, &threshold), 0)
        XCTAssertEqual(Int(threshold), granted.periodFrames, "start threshold: one period")

        let frameBytes = granted.format == .float32 ? 8 : 4
        let silence = [UInt8](repeating: 0, count: granted.periodFrames * frameBytes)
        func writePeriod() -> Int { silence.withUnsafeBytes { Int(snd_pcm_writei(pcm, $0.baseAddress, snd_pcm_uframes_t(granted.periodFrames))) } }
        XCTAssertEqual(snd_pcm_state(pcm), SND_PCM_STATE_PREPARED)
        XCTAssertEqual(writePeriod(), granted.periodFrames)
        XCTAssertEqual(snd_pcm_state(pcm), SND_PCM_STATE_RUNNING, "started by the first period")
        // An underrun's recovery (what ALSAPeriodWriter calls on −EPIPE), then one period.
        XCTAssertEqual(snd_pcm_recover(pcm, -EPIPE, 1), 0)
        XCTAssertEqual(snd_pcm_state(pcm), SND_PCM_STATE_PREPARED)
        XCTAssertEqual(writePeriod(), granted.periodFrames)
        XCTAssertEqual(snd_pcm_state(pcm), SND_PCM_STATE_RUNNING, "started again by the first period after the recovery")
    }
}
