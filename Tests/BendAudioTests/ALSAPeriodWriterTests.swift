// SPDX-License-Identifier: GPL-3.0-or-later
import CALSA
import Glibc
import Synchronization
import XCTest
@testable import BendAudio

/// A scripted stand-in for a PCM behind `ALSAPCMPort` (RW-41: the shairport-sync fix
/// drives its output through such a mock). Replies are consumed one per call; when a
/// script runs out, the default reply is used.
final class MockPCM {
    /// writei replies: n ≥ 0 accepts min(n, offered) frames; n < 0 is that error.
    var writes: [Int] = []
    var defaultWrite = Int.max
    /// state replies (snd_pcm_state_t values); default RUNNING.
    var states: [Int32] = []
    var recoverResult: Int32 = 0
    var waitResult: Int32 = 1
    let frameBytes: Int

    private(set) var accepted: [UInt8] = []
    /// The bytes offered by each writei call.
    private(set) var attempts: [[UInt8]] = []
    private(set) var recovers: [[Int32]] = []
    private(set) var waitTimeouts: [Int32] = []
    private(set) var stateCalls = 0

    static let running = Int32(bitPattern: SND_PCM_STATE_RUNNING.rawValue)

    init(frameBytes: Int) { self.frameBytes = frameBytes }

    var port: ALSAPCMPort {
        ALSAPCMPort(
            handle: Unmanaged.passUnretained(self).toOpaque(),
            writei: { h, buffer, frames in Unmanaged<MockPCM>.fromOpaque(h).takeUnretainedValue().writei(buffer, frames) },
            recover: { h, err, silent in
                let m = Unmanaged<MockPCM>.fromOpaque(h).takeUnretainedValue()
                m.recovers.append([err, silent])
                return m.recoverResult
            },
            wait: { h, timeout in
                let m = Unmanaged<MockPCM>.fromOpaque(h).takeUnretainedValue()
                m.waitTimeouts.append(timeout)
                return m.waitResult
            },
            state: { h in
                let m = Unmanaged<MockPCM>.fromOpaque(h).takeUnretainedValue()
                m.stateCalls += 1
                return m.states.isEmpty ? MockPCM.running : m.states.removeFirst()
            })
    }

    private func writei(_ buffer: UnsafeRawPointer, _ frames: Int) -> Int {
        let offered = [UInt8](UnsafeRawBufferPointer(start: buffer, count: frames * frameBytes))
        attempts.append(offered)
        let reply = writes.isEmpty ? defaultWrite : writes.removeFirst()
        if reply < 0 { return reply }
        let n = min(reply, frames)
        accepted += offered[0 ..< n * frameBytes]
        return n
    }
}

/// Byte-compares without dumping the arrays: reports the sizes and the first difference.
func assertSameBytes(_ a: [UInt8], _ b: [UInt8], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
    if a == b { return }
    let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
    XCTFail("\(message): \(a.count) vs \(b.count) bytes, first difference at byte \(first)", file: file, line: line)
}

final class ALSAPeriodWriterTests: XCTestCase {
    let frames = 256
    let frameBytes = 8
    var counters = ALSAPlaybackCounters()
    let stop = UnsafeMutablePointer<Atomic<Bool>>.allocate(capacity: 1)

    override func setUp() {
        counters = ALSAPlaybackCounters()
        stop.initialize(to: Atomic(false))
    }

    override func tearDown() {
        counters.deallocate()
    }

    /// Period `n`: every byte distinct from other periods' bytes at the same place.
    func period(_ n: Int) -> [UInt8] {
        (0 ..< frames * frameBytes).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ n &* 31 &+ ($0 >> 8)) }
    }

    func write(_ data: [UInt8], to mock: MockPCM, policy: ALSAWritePolicy = ALSAWritePolicy()) -> PeriodWriteResult {
        data.withUnsafeBytes {
            writePeriod($0.baseAddress!, frames: frames, frameBytes: frameBytes, port: mock.port,
                        policy: policy, counters: counters, stop: stop)
        }
    }

    /// RW-41 steps 1–6 in order, on one stream of 15 periods.
    func testRW41TimelineRetriesTheSamePeriodAndCountsEveryXRun() {
        let mock = MockPCM(frameBytes: frameBytes)
        let xrun = Int32(bitPattern: SND_PCM_STATE_XRUN.rawValue)
        mock.states = Array(repeating: MockPCM.running, count: 10) + [xrun]   // step 2: XRUN before write 11
        mock.writes = Array(repeating: Int.max, count: 11)
            + [Int(-EPIPE), .max]                  // step 3: write 12 underruns once
            + [Int(-EPIPE), Int(-EPIPE), .max]     // step 4: write 13 underruns twice in a row
            + [100, .max]                          // step 5: short write (100 of 256)
            + [Int(-EAGAIN), .max]                 // step 6: no room yet
        var expected: [UInt8] = []
        for n in 1...15 {
            XCTAssertEqual(write(period(n), to: mock), .written, "period \(n)")
            expected += period(n)
        }
        // No gap, no repeat: the accepted stream is the 15 periods in order.
        assertSameBytes(mock.accepted, expected, "accepted stream")
        XCTAssertEqual(mock.attempts.count, 20)
        guard mock.attempts.count == 20 else { return }
        // Period 12 (attempts 11, 12) and 13 (13, 14, 15) were retried byte for byte.
        assertSameBytes(mock.attempts[11], period(12), "write 12"); assertSameBytes(mock.attempts[12], period(12), "write 12 retry")
        for a in 13...15 { assertSameBytes(mock.attempts[a], period(13), "write 13, attempt \(a - 12)") }
        // Period 14: the rest after the short write.
        assertSameBytes(mock.attempts[17], Array(period(14)[(100 * frameBytes)...]), "write 14 after 100 frames")
        // Recovered with the error, silently; never with 0.
        XCTAssertEqual(mock.recovers, Array(repeating: [-EPIPE, 1], count: 4))
        XCTAssertEqual(counters.get(.xruns), 4, "1 XRUN state + 3 × −EPIPE injected")
        XCTAssertEqual(mock.waitTimeouts, [250], "one wait on −EAGAIN")
        XCTAssertEqual(counters.get(.periodsWritten), 15)
        XCTAssertEqual(counters.get(.failure), 0)
        XCTAssertEqual(counters.get(.lastError), Int(-EPIPE))
    }

    struct Case {
        var name: String
        var states: [Int32] = []
        var writes: [Int] = []
        var defaultWrite = Int.max
        var recoverResult: Int32 = 0
        var waitResult: Int32 = 1
        var stopRequested = false
        // Expected:
        var result: PeriodWriteResult
        var writeCalls: Int
        var recovers: [[Int32]] = []
        var waits = 0
        var xruns = 0
        var acceptedFrames: Int
        var failedCall = ALSAFailedCall.writei
    }

    /// Every fault alone: what the writer returns, how often each call was made (no busy
    /// loop: calls are bounded by `maxRetries` = 5 and `maxWaits` = 8), what it recovered with.
    func testFaultTable() {
        let suspended = Int32(bitPattern: SND_PCM_STATE_SUSPENDED.rawValue)
        let disconnected = Int32(bitPattern: SND_PCM_STATE_DISCONNECTED.rawValue)
        let cases: [Case] = [
            Case(name: "clean", result: .written, writeCalls: 1, acceptedFrames: 256),
            Case(name: "short writes 100+100+56", writes: [100, 100], result: .written, writeCalls: 3, acceptedFrames: 256),
            Case(name: "-ESTRPIPE (suspend)", writes: [Int(-ESTRPIPE)], result: .written, writeCalls: 2,
                 recovers: [[-ESTRPIPE, 1]], xruns: 1, acceptedFrames: 256),
            Case(name: "SUSPENDED state before write", states: [suspended], result: .written, writeCalls: 1,
                 recovers: [[-ESTRPIPE, 1]], xruns: 1, acceptedFrames: 256),
            Case(name: "-EPIPE forever", defaultWrite: Int(-EPIPE), result: .failed(-EPIPE), writeCalls: 6,
                 recovers: Array(repeating: [-EPIPE, 1], count: 5), xruns: 6, acceptedFrames: 0),
            Case(name: "-EPIPE after a short write", writes: [56, Int(-EPIPE)], result: .written, writeCalls: 3,
                 recovers: [[-EPIPE, 1]], xruns: 1, acceptedFrames: 256),
            Case(name: "recover fails", writes: [Int(-EPIPE)], recoverResult: -ENODEV, result: .failed(-ENODEV),
                 writeCalls: 1, recovers: [[-EPIPE, 1]], xruns: 1, acceptedFrames: 0, failedCall: .recover),
            Case(name: "-ENODEV (unplugged)", writes: [Int(-ENODEV)], result: .failed(-ENODEV), writeCalls: 1, acceptedFrames: 0),
            Case(name: "-EBADFD", writes: [Int(-EBADFD)], result: .failed(-EBADFD), writeCalls: 1, acceptedFrames: 0),
            Case(name: "DISCONNECTED state", states: [disconnected], result: .failed(-ENODEV), writeCalls: 0, acceptedFrames: 0,
                 failedCall: .state),
            Case(name: "-EINTR once", writes: [Int(-EINTR)], result: .written, writeCalls: 2, acceptedFrames: 256),
            Case(name: "-EIO forever", defaultWrite: Int(-EIO), result: .failed(-EIO), writeCalls: 6, acceptedFrames: 0),
            Case(name: "-EAGAIN twice", writes: [Int(-EAGAIN), Int(-EAGAIN)], result: .written, writeCalls: 3,
                 waits: 2, acceptedFrames: 256),
            Case(name: "0 frames then room", writes: [0], result: .written, writeCalls: 2, waits: 1, acceptedFrames: 256),
            Case(name: "-EAGAIN forever (stalled)", defaultWrite: Int(-EAGAIN), waitResult: 0, result: .failed(-ETIMEDOUT),
                 writeCalls: 9, waits: 8, acceptedFrames: 0, failedCall: .wait),
            Case(name: "-EAGAIN while stopping", writes: [100, Int(-EAGAIN)], stopRequested: true, result: .stopped,
                 writeCalls: 2, acceptedFrames: 100),
        ]
        for c in cases {
            setUp()
            let mock = MockPCM(frameBytes: frameBytes)
            mock.states = c.states
            mock.writes = c.writes
            mock.defaultWrite = c.defaultWrite
            mock.recoverResult = c.recoverResult
            mock.waitResult = c.waitResult
            stop.pointee.store(c.stopRequested, ordering: .relaxed)
            let data = period(1)
            let result = write(data, to: mock)
            XCTAssertEqual(result, c.result, c.name)
            XCTAssertEqual(mock.attempts.count, c.writeCalls, "\(c.name): writei calls")
            XCTAssertEqual(mock.recovers, c.recovers, "\(c.name): recover calls")
            XCTAssertEqual(mock.waitTimeouts.count, c.waits, "\(c.name): waits")
            XCTAssertEqual(counters.get(.xruns), c.xruns, "\(c.name): xruns")
            XCTAssertEqual(mock.stateCalls, 1, "\(c.name): one state check per period")
            assertSameBytes(mock.accepted, Array(data[0 ..< c.acceptedFrames * frameBytes]), "\(c.name): accepted bytes")
            XCTAssertEqual(counters.get(.periodsWritten), c.result == .written ? 1 : 0, c.name)
            if case .failed(let code) = c.result {
                XCTAssertEqual(counters.get(.failure), Int(code), c.name)
                XCTAssertEqual(counters.get(.failedCall), c.failedCall.rawValue, c.name)
            }
            tearDown()
        }
        setUp()
    }

    /// RW-41 "expect": through the whole render loop, with xruns, a short write and
    /// −EAGAIN injected, the stream the device accepted equals the offline render
    /// (the voice continues with continuous phase; nothing dropped or repeated).
    func testRenderLoopWithFaultsMatchesOfflineRender() {
        let live = ALSATestTone.harness(periodFrames: frames)
        defer { live.free() }
        live.sendScript()
        let mock = MockPCM(frameBytes: frameBytes)
        mock.writes = [.max, .max, Int(-EPIPE), .max, 17, Int(-EAGAIN), .max, Int(-ESTRPIPE), Int(-EPIPE), .max]
        let floats = UnsafeMutablePointer<Float>.allocate(capacity: 2 * frames)
        defer { floats.deallocate() }
        let periods = 100
        let loop = ALSASink(port: mock.port, policy: ALSAWritePolicy(), counters: counters, stop: stop,
                            driver: RenderDriver(mixer: live.mixer), buffer: .float(floats),
                            periodFrames: frames, frameLimit: UInt64(periods * frames))
        XCTAssertEqual(loop.run(), .stopped)
        XCTAssertEqual(counters.get(.xruns), 3)
        XCTAssertEqual(counters.get(.periodsWritten), periods)

        let offline = ALSATestTone.harness(periodFrames: frames)
        defer { offline.free() }
        offline.sendScript()
        assertSameBytes(mock.accepted, bytes(of: offline.renderPeriods(periods)), "accepted vs offline")
    }

    /// A device that disappears mid-play (−ENODEV after 10 periods) ends the render
    /// thread by itself; `failure` names the call, the device and why.
    func testDeviceGoneEndsTheThreadWithAFailure() throws {
        let rig = ALSATestTone.harness(periodFrames: frames)
        defer { rig.free() }
        rig.sendScript()
        let mock = MockPCM(frameBytes: frameBytes)
        mock.writes = Array(repeating: .max, count: 10)
        mock.defaultWrite = Int(-ENODEV)
        let output = try ALSAOutput(device: "null", rate: 48_000, periodFrames: frames)
        output.makePort = { _ in mock.port }
        try output.start(mixer: rig.mixer, clock: nil, record: nil, priority: nil, lockMemory: false)
        output.waitUntilEnded()
        XCTAssertEqual(output.periodsWritten, 10)
        XCTAssertEqual(mock.attempts.count, 11, "no retry after −ENODEV")
        XCTAssertEqual(output.lastError, -ENODEV)
        XCTAssertEqual(output.failure.map { "\($0)" }, "ALSA 'null': snd_pcm_writei: No such device (the device is gone)")
        output.stop()
        withExtendedLifetime(mock) {}
    }
}
