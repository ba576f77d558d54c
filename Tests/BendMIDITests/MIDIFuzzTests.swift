// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendMIDI
import BendTestSupport
import XCTest

/// Random and mutated inputs: nothing crashes or stalls, every touch started ends, no
/// NaN or negative pitch, gains in 0…1; malformed files fail with an offset inside the file.
final class MIDIFuzzTests: XCTestCase {
    /// 100 000 random byte strings (biased towards status bytes and MIDI's values), in
    /// random chunks, through one interpreter.
    func testInterpreterOnRandomStreams() {
        var rng = SplitMix(seed: 0x5EED)
        var m = MIDIInterpreter(toneNote: 60)
        var down: Set<UInt32> = []
        var faults = 0, events = 0
        var pedal = false
        func check(_ e: ControlEvent) {
            events += 1
            if case let .sustain(on) = e {
                if on == pedal { faults += 1 }  // only changes are sent
                pedal = on
                return
            }
            if case let .tilt(t) = e {  // CC 10: a tilt in −1…+1
                if !(-1...1).contains(t) { faults += 1 }
                return
            }
            if case let .send(id, _, level) = e {  // CC 91/93: a held note's send in 0…1
                if !down.contains(id) || !(0...1).contains(level) { faults += 1 }
                return
            }
            guard case let .pitched(id, phase, ratio, gain, y) = e else { faults += 1; return }
            switch phase {
            case .down: if !down.insert(id).inserted { faults += 1 }
            case .move: if !down.contains(id) { faults += 1 }
            case .up: if down.remove(id) == nil { faults += 1 }
            }
            if phase != .up && (!ratio.isFinite || ratio <= 0 || !(0...1).contains(gain) || !(0...1).contains(y)) { faults += 1 }
        }
        let statuses: [UInt8] = [0x80, 0x90, 0xA0, 0xB0, 0xC0, 0xD0, 0xE0, 0xF0, 0xF7, 0xF8, 0xFF, 0xF2, 0xF4]
        let controllers: [UInt8] = [101, 100, 6, 38, 74, 64, 120, 121, 123, 99, 98, 91, 93]
        var total = 0
        for _ in 0..<100_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 1...12, using: &rng) {
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<3: bytes.append(statuses.randomElement(using: &rng)! | UInt8.random(in: 0...15, using: &rng) & (Bool.random(using: &rng) ? 0 : 15))
                case 3: bytes.append(controllers.randomElement(using: &rng)!)
                case 4: bytes.append(UInt8.random(in: 0...255, using: &rng))
                case 5: bytes.append([0, 6, 15, 48, 127].randomElement(using: &rng)!)
                default: bytes.append(UInt8.random(in: 0...127, using: &rng))
                }
            }
            total += bytes.count
            m.receive(bytes, frame: 0) { e, _ in check(e) }
        }
        m.releaseAll { check($0) }
        XCTAssertEqual(faults, 0)
        XCTAssertTrue(down.isEmpty, "every touch started ends")
        XCTAssertFalse(pedal, "the pedal is let go at the end")
        XCTAssertGreaterThan(events, 10_000, "the fuzz reaches notes")
        XCTAssertGreaterThan(m.strayBytes, 0)
        print("interpreter fuzz: 100000 inputs, \(total) bytes, \(events) events, \(m.strayBytes) stray bytes")
    }

    /// 100 000 files: the corpus with random bytes changed, inserted, removed or cut,
    /// and random bytes after a valid header. Each parses or throws an `SMFError` whose
    /// offset lies in the file; what parses converts to a script whose touches all end.
    func testReaderOnMutatedFiles() throws {
        var seeds: [[UInt8]] = []
        for name in ["mido-format0-tempo.mid", "mido-format1-tempo-map.mid", "mido-mpe-17edo.mid"] {
            seeds.append(try Corpus.bytes(Corpus.fixtures.appendingPathComponent(name)))
        }
        var rng = SplitMix(seed: 0xF11E)
        var parsed = 0, rejected = 0
        for i in 0..<100_000 {
            var b = seeds.randomElement(using: &rng)!
            if i % 10 == 0 {
                b = Array(b.prefix(14)) + (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            } else {
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let at = Int.random(in: 0..<max(b.count, 1), using: &rng)
                    switch Int.random(in: 0..<4, using: &rng) {
                    case 0 where !b.isEmpty: b[at] = UInt8.random(in: 0...255, using: &rng)
                    case 1: b.insert(UInt8.random(in: 0...255, using: &rng), at: min(at, b.count))
                    case 2 where !b.isEmpty: b.remove(at: at)
                    default: b = Array(b.prefix(at))
                    }
                }
            }
            do {
                let f = try StandardMIDIFile.parse(b)
                parsed += 1
                let script = try MIDIFileScript.script(f)
                var down: Set<UInt32> = []
                for e in script.entries {
                    guard let (id, phase) = e.event.touchPhase else { continue }
                    if phase == .down { down.insert(id) } else if phase == .up { down.remove(id) }
                }
                XCTAssertTrue(down.isEmpty)
            } catch {
                rejected += 1
                XCTAssertTrue((0...b.count).contains(error.offset), "offset \(error.offset) outside a \(b.count)-byte file: \(error)")
            }
        }
        XCTAssertGreaterThan(parsed, 1000)
        XCTAssertGreaterThan(rejected, 1000)
        print("SMF fuzz: 100000 files, \(parsed) parsed, \(rejected) rejected")
    }
}
