// SPDX-License-Identifier: GPL-3.0-or-later
import BendOSC
import Foundation
import Glibc
import XCTest

/// A running `bendsynth play --osc …` (standard error into a file, read as it grows)
/// and the clients that talk to it: oscsend (liblo-tools), python-osc, raw UDP/TCP.
final class OSCPlayProcess {
    let process = Process()
    let dir: URL
    let stderrPath: String
    private(set) var port: UInt16 = 0

    init(_ arguments: [String], dir: URL) throws {
        self.dir = dir
        stderrPath = dir.appendingPathComponent("stderr.txt").path
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = BinaryRunner.executable
        process.arguments = arguments
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
        try Poll.require("the OSC listener", seconds: 30) { stderr.contains("OSC listening on ") || !process.isRunning }
        let line = try XCTUnwrap(stderr.split(separator: "\n").first { $0.contains("OSC listening on ") }, stderr)
        let addr = line.split(separator: " ")[5].trimmingCharacters(in: CharacterSet(charactersIn: ","))
        port = try XCTUnwrap(UInt16(addr.split(separator: ":").last!), String(line))
    }

    /// A test that failed before `terminate()` must not leave play running.
    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// SIGTERM (resent every 0.5 s, as a guard), then the exit status.
    func terminate() -> Int32 {
        var sent = Date.distantPast
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning {
            if Date() > deadline {
                XCTFail("play did not stop on SIGTERM within 20 s; killed")
                kill(process.processIdentifier, SIGKILL)
                break
            }
            if Date().timeIntervalSince(sent) > 0.5 {
                kill(process.processIdentifier, SIGTERM)
                sent = Date()
            }
            usleep(10_000)
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Runs a client program to its end. - Returns: its exit status.
    @discardableResult
    func client(_ path: String, _ arguments: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }

    func oscsend(_ arguments: [String]) throws {
        XCTAssertEqual(try client("/usr/bin/oscsend", ["127.0.0.1", String(port)] + arguments), 0, "oscsend \(arguments)")
    }

    func python(_ script: String, _ arguments: [String]) throws {
        let python = OSCPlayProcess.python
        guard FileManager.default.isExecutableFile(atPath: python) else {
            XCTFail("python-osc is missing: \(python) (make test sets up .build/pyosc; or set BENDSYNTH_PYTHON)")
            throw CocoaError(.fileNoSuchFile)
        }
        let path = BinaryRunner.packageRoot.appendingPathComponent("Tests/BendAppTests/osc/" + script).path
        XCTAssertEqual(try client(python, [path] + arguments), 0, "\(script) \(arguments)")
    }

    static var python: String {
        ProcessInfo.processInfo.environment["BENDSYNTH_PYTHON"]
            ?? BinaryRunner.packageRoot.appendingPathComponent(".build/pyosc/bin/python3").path
    }
}

/// A UDP socket on loopback for raw datagrams and `/bendsynth/voices` queries.
final class UDPClient {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    var target = sockaddr_in()

    init(port: UInt16, host: String = "127.0.0.1", bindTo: String? = nil) {
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &target.sin_addr)
        var tv = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if let bindTo {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, bindTo, &local.sin_addr)
            _ = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { b in
            withUnsafePointer(to: &target) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, b.baseAddress, b.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            } }
        }
    }

    /// (voices sounding, OSC touches held, this sender's touches), nil without a reply.
    func voices() -> (voices: Int, touches: Int, mine: Int)? {
        send(OSCEncoder.encode("/bendsynth/voices", [])!)
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n > 0, case .message(let m)? = try? OSCPacket.decode(Array(buffer.prefix(n))),
              m.address == "/bendsynth/voices", m.types == "iii",
              case .int32(let v) = m.arguments[0], case .int32(let t) = m.arguments[1], case .int32(let o) = m.arguments[2] else { return nil }
        return (Int(v), Int(t), Int(o))
    }
}

