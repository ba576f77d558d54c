// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendEngine
import BendSystem
import BendWeb
import Foundation
import Glibc
import Synchronization

/// `bendsynth-bench --web DRIVER`: the time from a touch dispatched in headless Chromium
/// (by the pad driver script, over DevTools) to its event in the engine's queue (the
/// source's port has pushed it on its ring). Both ends read CLOCK_MONOTONIC: the driver
/// just before it writes the dispatch command, the port's observer just after the push.
/// In between: DevTools, Chromium's input pipeline and pointer events, the page's
/// WebSocket send, loopback TCP, libwebsockets, the decoder, the sessions' lock. A paced
/// render thread drains the queue, as in `play`.
///
/// Two ways of making the touch (`Input`): Chromium's touch emulation, which routes the
/// touch as a touchscreen's, and DevTools' `Input.dispatchTouchEvent`, which first waits
/// for the page's next frame (`InsertVisualStateCallback`: a touch from that command
/// reaches the page only once its last changes are on screen, which a real touch does
/// not). The page's own clock splits the figure: each pointerdown's `timeStamp` is the
/// instant Chromium's browser process made the touch event from the DevTools command.
public enum WebBench {
    /// Median, p99 and max of a set of latencies, milliseconds.
    public struct Figures {
        public var median: Double
        public var p99: Double
        public var max: Double

        init(_ milliseconds: [Double]) {
            let s = milliseconds.sorted()
            median = s[s.count / 2]
            p99 = s[min(s.count - 1, s.count * 99 / 100)]
            max = s[s.count - 1]
        }
    }
    /// How the driver makes each touch in Chromium (its `bench` scenario's PATH).
    public enum Input: String, CaseIterable, Sendable {
        /// Chromium's touch emulation (`Emulation.setEmitTouchEventsForMouse`, DevTools'
        /// device mode): the browser process makes a touch event from each mouse command and
        /// routes it as a touchscreen's. The headline figure.
        case emulated
        /// DevTools' `Input.dispatchTouchEvent`: a frame's wait before the routing.
        case dispatch
    }

    public struct Result {
        /// How the touches were made.
        public var input: Input
        /// Touches measured.
        public var count: Int
        /// Dispatch → the engine's queue.
        public var total: Figures
        /// Dispatch → the page's pointerdown (Chromium's part; wall clocks, 0.1 ms).
        public var browser: Figures
        /// Dispatch → the touch event's timeStamp (the DevTools pipe, the browser's command handling).
        public var devtools: Figures
        /// The event's timeStamp → pointerdown (DevTools' wait for the page's frame, input routing).
        public var routing: Figures
        /// The page's pointerdown → the engine's queue (the page, WebSocket, server, decoder).
        public var instrument: Figures
        /// Chromium's product name and the flags the driver started it with.
        public var chromium: String
        public var flags: String
        /// The page's viewport, as the driver printed it: "412x915 2.625" (CSS px, device pixels per px).
        public var viewport: String
        /// This process's scheduling, which the driver and Chromium inherit: "SCHED_FIFO 10", "SCHED_OTHER".
        public var scheduling: String
        /// CPU seconds the hypervisor took from this machine during the run (nil: unknown).
        public var stolen: Double?
    }

    /// The calling process's scheduling policy and priority, as `chrt` names them.
    static func scheduling() -> String {
        var param = sched_param()
        sched_getparam(0, &param)
        switch sched_getscheduler(0) {
        case SCHED_FIFO: return "SCHED_FIFO \(param.sched_priority)"
        case SCHED_RR: return "SCHED_RR \(param.sched_priority)"
        case 3: return "SCHED_BATCH"   // Linux's numbers; Glibc's module does not export these two
        case 5: return "SCHED_IDLE"
        default: return "SCHED_OTHER"
        }
    }

    /// When each down reached the port. - Thread: the server's.
    final class DownLog: ControlEventObserver, @unchecked Sendable {
        /// CLOCK_MONOTONIC and CLOCK_REALTIME ns of each down's arrival.
        let times = Mutex<[(UInt64, UInt64)]>([])
        func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) {
            guard case .touch(_, .down, _, _) = event else { return }
            let now = MonotonicClock.nanos()
            var wall = timespec()
            clock_gettime(CLOCK_REALTIME, &wall)
            times.withLock { $0.append((now, UInt64(wall.tv_sec) * 1_000_000_000 + UInt64(wall.tv_nsec))) }
        }
    }

    /// Serves the page from `assets`, runs `python3 driver bench URL count input`, and pairs
    /// each dispatch time it prints with the down's arrival.
    /// - Throws: `BenchError.setup` when the server, Chromium or the driver fail, or not
    ///   every touch arrived.
    public static func measure(driver: String, assets: String, count: Int, input: Input) throws -> Result {
        let rate = 48_000, period = 64
        let tone = ToneTable(samples: [0, 0.5, 0, -0.5], rate: Double(rate))
        let instrument = Instrument(configuration: MixerConfiguration(rate: Double(rate), maxPeriodFrames: period, voices: 4),
                                    tone: tone, live: true)
        let log = DownLog()
        let port = instrument.addPort(pitchMap: .linear, observers: [log])
        let output = PacedOutput(rate: rate, periodFrames: period)
        let server: WebServer
        do {
            let sessions = WebSessions(token: WebToken.random(), emit: { port.send($0) })
            server = try WebServer(address: WebListenAddress(host: "127.0.0.1", port: 0), certificate: nil,
                                   assets: try WebAssets(directory: assets), sessions: sessions, log: { _ in })
            try output.start(instrument.driver())
        } catch {
            output.stop()
            instrument.deallocate(); tone.deallocate()
            throw BenchError.setup("--web: \(error)")
        }
        defer {
            server.stop()
            output.stop()
            instrument.deallocate(); tone.deallocate()
        }
        let stolenBefore = HostSteal.seconds()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [driver, "bench", server.url, String(count), input.rawValue]
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        let out = Pipe()
        p.standardOutput = out
        do { try p.run() } catch { throw BenchError.setup("--web: cannot run python3 '\(driver)': \(error)") }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw BenchError.setup("--web: the driver '\(driver)' failed (status \(p.terminationStatus))") }
        let rows = text.split(separator: "\n")
        let lines = rows.map { $0.split(separator: " ").compactMap { UInt64($0) } }
        let sent = zip(rows, lines).filter { $0.0.hasPrefix("down ") && $0.1.count == 2 }.map { ($0.1[0], $0.1[1]) }
        let seen = zip(rows, lines).filter { $0.0.hasPrefix("page ") && $0.1.count == 2 }.map { ($0.1[0], $0.1[1]) }
        func field(_ key: String) -> String { rows.first { $0.hasPrefix(key + " ") }.map { String($0.dropFirst(key.count + 1)) } ?? "?" }
        let arrived = log.times.withLock { $0 }
        guard sent.count == count, arrived.count == count, seen.count == count else {
            throw BenchError.setup("--web: \(sent.count) touches dispatched, \(seen.count) seen by the page, \(arrived.count) arrived, of \(count)")
        }
        func ms(_ later: UInt64, _ earlier: UInt64) -> Double { Double(Int64(bitPattern: later &- earlier)) * 1e-6 }
        return Result(input: input, count: count,
                      total: Figures(zip(arrived, sent).map { ms($0.0.0, $0.1.0) }),
                      browser: Figures(zip(seen, sent).map { ms($0.0.0, $0.1.1) }),
                      devtools: Figures(zip(seen, sent).map { ms($0.0.1, $0.1.1) }),
                      routing: Figures(seen.map { ms($0.0, $0.1) }),
                      instrument: Figures(zip(arrived, seen).map { ms($0.0.1, $0.1.0) }),
                      chromium: field("browser"), flags: field("flags"), viewport: field("viewport"), scheduling: scheduling(),
                      stolen: HostSteal.seconds().flatMap { after in stolenBefore.map { after - $0 } })
    }
}
