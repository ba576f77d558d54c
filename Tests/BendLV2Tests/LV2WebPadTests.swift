// SPDX-License-Identifier: GPL-3.0-or-later
import BendLV2Host
import BendMIDI
import BendSystem
import BendTestSupport
import CAllocCounter
import Foundation
import Glibc
import Synchronization
import XCTest

/// The phone pad in the DAW: the plugin in the test host, `web` on; headless Chromium
/// (Debian's `chromium`, driven over DevTools by Tests/BendAppTests/web/pad_driver.py)
/// pairs with the address the plugin wrote and holds one finger on the pad. The output
/// sounds at the touched pitch, and the atom output carries the touch as MPE; run() and
/// the worker's responses allocate nothing while the pad's MPE flows through them.
final class LV2WebPadTests: XCTestCase {
    func testAPhoneFingerSoundsAtItsPitchAndComesOutAsMPE() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else { throw XCTSkip("chromium is not installed; `make test` installs it") }
        _ = try LV2Bundle.build()
        let folder = try LV2TestFolder()
        setenv("XDG_CONFIG_HOME", folder.url.appendingPathComponent("config").path, 1)  // the pad's certificate, made here
        let h = try LV2PluginHost(uri: LV2Bundle.uri, lv2Path: LV2Bundle.path, rate: 48_000, maxBlock: 256, stateFolder: folder.path)
        h["interpolation"] = 1
        h["web"] = 1
        let midiEvent = h.midiEvent
        h.aroundRun = { alloc_counter_watch_this_thread($0 ? 1 : 0) }
        alloc_counter_reset()

        // The host's audio thread: 256-frame blocks paced by the monotonic clock (the
        // pad's touches are stamped with it), until told to stop.
        let stop = Flag()
        final class Take: @unchecked Sendable { var audio: [Float] = []; var midi: [(frame: Int, bytes: [UInt8])] = [] }
        let take = Take()
        final class Host: @unchecked Sendable { let h: LV2PluginHost; init(_ h: LV2PluginHost) { self.h = h } }
        let shared = Host(h)  // the thread below is its only user until it is joined
        let thread = Thread {
            let h = shared.h
            var next = MonotonicClock.nanos()
            while !stop.isSet {
                take.audio += h.runInterleaved(frames: 256)
                for e in h.atomOutputs[0].events where e.type == midiEvent { take.midi.append((take.audio.count / 2 - 256 + e.frame, e.bytes)) }
                next += 256 * 1_000_000_000 / 48_000
                let now = MonotonicClock.nanos()
                if next > now { usleep(UInt32((next - now) / 1000)) }
            }
        }
        thread.start()
        defer { stop.set(); while !thread.isFinished { usleep(1000) } }

        // The pairing address, as the plugin wrote it in its state folder (and logged it).
        let urlFile = folder.url.appendingPathComponent("web-pad-url.txt").path
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: urlFile) && Date() < deadline { usleep(20_000) }
        var url = try String(contentsOfFile: urlFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(url.hasPrefix("https://"), url)
        // Served on every interface: this machine's browser comes in by loopback.
        if let host = URLComponents(string: url)?.host { url = url.replacingOccurrences(of: "//\(host):", with: "//127.0.0.1:") }

        let driver = LV2Bundle.packageRoot.appendingPathComponent("Tests/BendAppTests/web/pad_driver.py").path
        let run = try LV2Bundle.run(["python3", driver, "hold", url, "0.75", "0.8", "1.5"])
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertTrue(run.output.contains("down 0.75 0.8"), run.output)
        usleep(300_000)
        stop.set()
        while !thread.isFinished { usleep(1000) }
        XCTAssertTrue(h.log().contains("web pad address: https://"), h.log())
        XCTAssertEqual(alloc_counter_count(), 0, "heap allocations in run() and work_response")

        // The sound: x = 0.75 on the default pad (two octaves, exponential) is 600 cents
        // over the tone's A4: ratio √2, 622.25 Hz (D#5, a step of the default rounding).
        let left = Measure.channel(take.audio, 0)
        let first = try XCTUnwrap(left.firstIndex { $0 != 0 }, "the phone's touch sounds")
        let hz = Measure.peakFrequency(Array(left[(first + 4800)..<min(first + 4800 + 48_000, left.count)]), rate: 48_000)
        XCTAssertEqual(hz, 440 * 2.0.squareRoot(), accuracy: 0.62, "the touched pitch")
        XCTAssertLessThan(Measure.rms(left[(left.count - 4800)...]), 1e-6, "silent after the finger's up")

        // The MPE out: the zone set-up, then the touch; decoded by the interpreter
        // (--midi-in's mapping), its pitch within 1 cent of the sound's.
        XCTAssertEqual(take.midi.first?.bytes, [0xB0, 101, 0], "the MCM first")
        var decoder = MIDIInterpreter(toneNote: 69)
        var downs: [Double] = [], ups = 0
        for m in take.midi {
            decoder.interpret(MIDIMessage(status: m.bytes[0], data1: m.bytes.count > 1 ? m.bytes[1] : 0, data2: m.bytes.count > 2 ? m.bytes[2] : 0)) { e in
                if case let .pitched(_, phase, ratio, _, _) = e {
                    if phase == .down { downs.append(ratio) }
                    if phase == .up { ups += 1 }
                }
            }
        }
        XCTAssertEqual(downs.count, 1, "one touch: \(take.midi.map(\.bytes))")
        print(String(format: "phone pad in the plugin: %.2f Hz sounding, MPE %.3f cents from it, %d MIDI messages", hz,
                     1200 * log2((downs.first ?? 0) / 2.0.squareRoot()), take.midi.count))
        XCTAssertEqual(1200 * log2((downs.first ?? 0) / 2.0.squareRoot()), 0, accuracy: 1, "cents from ratio √2")
        XCTAssertEqual(ups, 1, "its note-off")
        let noteOn = try XCTUnwrap(take.midi.first { $0.bytes[0] & 0xF0 == 0x90 })
        XCTAssertEqual(Double(noteOn.frame), Double(first), accuracy: Double(h["latency"]) + 256, "the MPE note-on at the sound's frame")
    }
}

/// A flag another thread sets. - Thread: any.
final class Flag: @unchecked Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
