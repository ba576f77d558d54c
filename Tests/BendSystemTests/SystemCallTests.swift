// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Glibc
import XCTest

/// `systemCall`, the one place EINTR is retried and errno becomes a `SystemError`: a
/// table of forced failures, the way swift-system mocks its syscalls.
final class SystemCallTests: XCTestCase {
    /// A fake call that fails with the scripted errno values in turn, then returns `result`.
    final class Script {
        var failures: [Int32]
        let result: Int
        var calls = 0
        init(_ failures: [Int32], then result: Int) { self.failures = failures; self.result = result }
        func call() -> Int {
            calls += 1
            if failures.isEmpty { return result }
            errno = failures.removeFirst()
            return -1
        }
    }

    func testForcedErrors() {
        struct Row { var failures: [Int32]; var retry = true; var expected: Result<Int, SystemError>; var calls: Int }
        let table: [Row] = [
            Row(failures: [], expected: .success(7), calls: 1),
            Row(failures: [EINTR], expected: .success(7), calls: 2),
            Row(failures: [EINTR, EINTR, EINTR], expected: .success(7), calls: 4),
            Row(failures: [EINTR], retry: false, expected: .failure(SystemError(call: "fake", code: EINTR)), calls: 1),
            Row(failures: [EPIPE], expected: .failure(SystemError(call: "fake", code: EPIPE)), calls: 1),
            Row(failures: [EINTR, ENODEV], expected: .failure(SystemError(call: "fake", code: ENODEV)), calls: 2),
            Row(failures: [EAGAIN, EINTR], expected: .failure(SystemError(call: "fake", code: EAGAIN)), calls: 1),
            Row(failures: [ESTRPIPE], expected: .failure(SystemError(call: "fake", code: ESTRPIPE)), calls: 1),
        ]
        for row in table {
            let script = Script(row.failures, then: 7)
            let got = Result { () throws(SystemError) -> Int in try systemCall("fake", retryOnInterrupt: row.retry) { script.call() } }
            XCTAssertEqual(got, row.expected, "\(row.failures)")
            XCTAssertEqual(script.calls, row.calls, "\(row.failures)")
        }
    }

    /// Results other than −1 pass, negative ones included (e.g. a count of −2 is no error).
    func testOnlyMinusOneIsAFailure() throws {
        XCTAssertEqual(try systemCall("fake") { Int32(0) }, 0)
        XCTAssertEqual(try systemCall("fake") { Int(-2) }, -2)
    }

    func testTheCallNameIsBuiltOnlyOnFailure() throws {
        var built = 0
        func name() -> String { built += 1; return "named" }
        _ = try systemCall(name()) { Int32(1) }
        XCTAssertEqual(built, 0)
        XCTAssertThrowsError(try systemCall(name()) { errno = EBADF; return Int32(-1) }) { e in
            XCTAssertEqual(e as? SystemError, SystemError(call: "named", code: EBADF))
        }
        XCTAssertEqual(built, 1)
    }

    func testErrorCodeReturningCalls() {
        XCTAssertNoThrow(try systemCallReturningError("pthread_x") { 0 })
        XCTAssertThrowsError(try systemCallReturningError("pthread_x") { EAGAIN }) { e in
            XCTAssertEqual(e as? SystemError, SystemError(call: "pthread_x", code: EAGAIN))
        }
    }

    func testDescriptionAndName() {
        let e = SystemError(call: "open(/dev/input/event3)", code: ENODEV)
        XCTAssertEqual(e.description, "open(/dev/input/event3): No such device")
        XCTAssertEqual(e.codeName, "ENODEV")
        XCTAssertEqual(SystemError.name(of: 9999), "errno 9999")
    }

    /// A real call failing: the errno is the call's, not one a later call left.
    func testRealCallCarriesItsErrno() {
        XCTAssertThrowsError(try systemCall("open(/nonexistent/x)") { open("/nonexistent/x", O_RDONLY) }) { e in
            XCTAssertEqual(e as? SystemError, SystemError(call: "open(/nonexistent/x)", code: ENOENT))
        }
        XCTAssertThrowsError(try systemCall("read(fd -1)") { read(-1, nil, 0) }) { e in
            XCTAssertEqual((e as? SystemError)?.code, EBADF)
        }
    }
}
