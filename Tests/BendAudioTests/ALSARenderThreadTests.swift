// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Foundation
import Glibc
import XCTest

/// The render thread's start: `SystemThread` (BendSystem has no test target of its own).
final class ALSARenderThreadTests: XCTestCase {
    /// The policy and priority the body saw on its own thread, from its first instruction.
    private func schedulingSeenByBody(priority: Int32?) throws -> (thread: SystemThread, policy: Int32, priority: Int32) {
        let seen = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
        defer { seen.deallocate() }
        seen.initialize(repeating: -1, count: 2)
        let address = Int(bitPattern: seen)
        let t = try SystemThread(priority: priority, lockMemory: false) {
            let out = UnsafeMutablePointer<Int32>(bitPattern: address)!
            var policy: Int32 = -1
            var param = sched_param()
            pthread_getschedparam(pthread_self(), &policy, &param)
            out[0] = policy
            out[1] = param.sched_priority
        }
        t.join()
        t.join()  // a second join returns at once
        return (t, seen[0], seen[1])
    }

    func testBodyRunsUnderSchedFIFOWhenAllowed() throws {
        let (t, policy, priority) = try schedulingSeenByBody(priority: 70)
        if t.isRealtime {
            XCTAssertNil(t.note)
            XCTAssertEqual(policy, SCHED_FIFO)
            XCTAssertEqual(priority, 70)
        } else {
            XCTAssertEqual(t.note, "real-time scheduling refused (EPERM): playing at normal priority")
            XCTAssertEqual(policy, SCHED_OTHER)
        }
    }

    func testNormalPriorityWhenNoneAsked() throws {
        let (t, policy, priority) = try schedulingSeenByBody(priority: nil)
        XCTAssertFalse(t.isRealtime)
        XCTAssertNil(t.note)
        XCTAssertEqual(policy, SCHED_OTHER)
        XCTAssertEqual(priority, 0)
    }

    /// Runs this test binary again without CAP_SYS_NICE (and RLIMIT_RTPRIO 0), where
    /// SCHED_FIFO is refused: the thread must still run, at normal priority, with one note.
    func testRefusalIsANoteNotAFailure() throws {
        let setpriv = "/usr/bin/setpriv"
        guard FileManager.default.isExecutableFile(atPath: setpriv) else { throw XCTSkip("no \(setpriv)") }
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: setpriv)
        child.arguments = ["--inh-caps", "-sys_nice", "--bounding-set", "-sys_nice", me,
                           "BendAudioTests.ALSARenderThreadTests/testRefusalChild"]
        var environment = ProcessInfo.processInfo.environment
        environment["BENDSYNTH_REFUSAL_CHILD"] = "1"
        child.environment = environment
        let pipe = Pipe()
        child.standardOutput = pipe
        child.standardError = pipe
        try child.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 0, output)
        XCTAssertTrue(output.contains("NOTE=real-time scheduling refused (EPERM): playing at normal priority POLICY=\(SCHED_OTHER)"),
                      output)
    }

    /// The child half of `testRefusalIsANoteNotAFailure`; skipped when run directly.
    func testRefusalChild() throws {
        guard ProcessInfo.processInfo.environment["BENDSYNTH_REFUSAL_CHILD"] == "1" else {
            throw XCTSkip("runs only as the child of testRefusalIsANoteNotAFailure")
        }
        let (t, policy, _) = try schedulingSeenByBody(priority: 70)
        XCTAssertFalse(t.isRealtime)
        print("NOTE=\(t.note ?? "nil") POLICY=\(policy)")
    }
}
