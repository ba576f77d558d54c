// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import BendMIDI
import BendTestSupport
import CAllocCounter
import XCTest

final class MPEEncoderTests: XCTestCase {
    private func configured(_ encoder: MPEEncoder) -> [MIDIMessage] {
        var out: [MIDIMessage] = []
        encoder.configuration { out.append($0) }
        return out
    }

    func testConfigurationStartsWithTheMCMAndSetsFortyEightSemitones() {
        let messages = configured(MPEEncoder())
        XCTAssertEqual(Array(messages.prefix(3)), [.controlChange(0, 101, 0), .controlChange(0, 100, 6), .controlChange(0, 6, 15)])
        // Read back: a lower zone of 15, members at ±48.
        var i = MIDIInterpreter()
        for m in messages { i.interpret(m) { _ in XCTFail("no touch from the set-up") } }
        XCTAssertEqual(i.zones, MPEZones(lowerMembers: 15))
        var last = 0.0
        for m in [MIDIMessage.pitchBend(7, 16383), .noteOn(7, 69, 100)] { i.interpret(m) { if case let .pitched(_, _, r, _, _) = $0 { last = r } } }
        XCTAssertEqual(cents(last, pow(2, 48 * 8191 / 8192 / 12)), 0, accuracy: 1e-9)
    }

    /// Random touches (pad and pitched: downs, moves, ups) encoded, then decoded by the
    /// interpreter: every touch's decoded pitch within 1 cent of the ratio sent; bend and
    /// CC 74 before each note-on, on a member channel.
    func testDecodedPitchWithinOneCentOfEveryTouch() {
        var rng = SplitMix(seed: 12)
        let map = PitchMap.exponential(octaves: 4)
        var encoder = MPEEncoder(toneNote: 69, pitchMap: map)
        var decoder = MIDIInterpreter()
        encoder.configuration { decoder.interpret($0) { _ in } }
        var held: [UInt32: Double] = [:]        // sent id → ratio sent
        var decodedID: [UInt32: UInt32] = [:]   // sent id → decoder's id
        var decoded: [UInt32: Double] = [:]     // decoder's id → its ratio now
        var previous: [Int: MIDIMessage] = [:]  // last message per channel
        var worst = 0.0, checked = 0
        for step in 0..<20_000 {
            let event: ControlEvent
            let r = Double.random(in: 0...1, using: &rng)
            if held.count < 15 && (held.isEmpty || r < 0.3) {
                let id = UInt32(step + 1)
                if r < 0.15 {
                    let x = Double.random(in: 0.05...1, using: &rng)
                    held[id] = map.ratio(x: x)
                    event = .touch(id: id, phase: .down, x: x, y: Double.random(in: 0...1, using: &rng))
                } else {
                    held[id] = exp2(Double.random(in: -4...2.9, using: &rng))
                    event = .pitched(id: id, phase: .down, ratio: held[id]!, gain: Double.random(in: 0...1, using: &rng), y: 0.5)
                }
            } else if r < 0.8 {
                let id = held.keys.sorted()[Int.random(in: 0..<held.count, using: &rng)]
                // A move stays within ±48 semitones of the note it started on (a tone at most from its last pitch).
                held[id]! *= exp2(Double.random(in: -0.16...0.16, using: &rng))
                event = .pitched(id: id, phase: .move, ratio: held[id]!, gain: 0.7, y: 0.2)
            } else {
                let id = held.keys.sorted()[Int.random(in: 0..<held.count, using: &rng)]
                held[id] = nil
                event = .pitched(id: id, phase: .up, ratio: 0, gain: 0, y: 0)
            }
            let (sent, phase) = event.touchPhase!
            encoder.encode(event) { m in
                if m.kind == 0x90 {
                    XCTAssertEqual(previous[m.channel]?.kind, 0xB0, "CC 74 right before the note-on")
                    XCTAssertNotEqual(m.channel, 0, "notes go on member channels")
                }
                if m.kind == 0xB0 && m.data1 == 74 { XCTAssertEqual(previous[m.channel]?.kind, phase == .down ? 0xE0 : previous[m.channel]?.kind) }
                previous[m.channel] = m
                decoder.interpret(m) { d in
                    guard case let .pitched(did, dphase, ratio, _, _) = d else { return }
                    if dphase == .down { decodedID[sent] = did }
                    decoded[did] = dphase == .up ? nil : ratio
                }
            }
            if let ratio = held[sent], let did = decodedID[sent], let now = decoded[did] {
                let e = abs(cents(now, ratio))
                worst = max(worst, e)
                checked += 1
                XCTAssertLessThan(e, 1, "touch \(sent): sent ratio \(ratio), decoded \(now)")
            } else if phase != .up {
                XCTFail("touch \(sent) (\(phase)) not decoded")
            }
        }
        XCTAssertEqual(decoder.heldNotes, held.count)
        XCTAssertGreaterThan(checked, 10_000)
        print("MPE round trip: \(checked) pitches, worst error \(String(format: "%.3f", worst)) cent")
    }

    func testLeastRecentlyUsedChannelsAndStealing() {
        var e = MPEEncoder()
        var out: [MIDIMessage] = []
        func send(_ ev: ControlEvent) { e.encode(ev) { out.append($0) } }
        func noteOnChannel() -> Int { out.last(where: { $0.kind == 0x90 })!.channel }
        send(.pitched(id: 1, phase: .down, ratio: 1, gain: 1, y: 1))
        XCTAssertEqual(noteOnChannel(), 1)
        send(.pitched(id: 2, phase: .down, ratio: 1, gain: 1, y: 1))
        XCTAssertEqual(noteOnChannel(), 2)
        send(.pitched(id: 1, phase: .up, ratio: 0, gain: 0, y: 0))
        XCTAssertEqual(out.last, .noteOff(1, 69))
        send(.pitched(id: 3, phase: .down, ratio: 1, gain: 1, y: 1))
        XCTAssertEqual(noteOnChannel(), 3, "channel 1 was used more recently than the never-used 3")
        for id in 4...15 as ClosedRange<UInt32> { send(.pitched(id: id, phase: .down, ratio: 1, gain: 1, y: 1)) }
        XCTAssertEqual(noteOnChannel(), 15)
        send(.pitched(id: 16, phase: .down, ratio: 1, gain: 1, y: 1))
        XCTAssertEqual(noteOnChannel(), 1, "the only free channel")
        out.removeAll()
        send(.pitched(id: 17, phase: .down, ratio: 2, gain: 1, y: 1))
        XCTAssertEqual(out.first, .noteOff(2, 69), "16 touches held: the oldest (id 2, channel 2) gives way")
        XCTAssertEqual(noteOnChannel(), 2)
        XCTAssertEqual(e.stolen, 1)
        XCTAssertEqual(e.activeTouches, 15)
    }

    func testVelocityCC74TiltAndRelease() {
        var e = MPEEncoder(pitchMap: .linear)
        var out: [MIDIMessage] = []
        e.encode(.touch(id: 5, phase: .down, x: 0.5, y: 0.25)) { out.append($0) }
        XCTAssertEqual(out, [.pitchBend(1, 8192), .controlChange(1, 74, 32), .noteOn(1, 69, 32)])
        out.removeAll()
        e.encode(.touch(id: 5, phase: .move, x: 0.5, y: 0.5)) { out.append($0) }
        XCTAssertEqual(out, [.controlChange(1, 74, 64), .channelPressure(1, 64)])
        out.removeAll()
        e.encode(.touch(id: 5, phase: .down, x: 0.5, y: 0)) { out.append($0) }
        XCTAssertEqual(out.first, .noteOff(1, 69), "a down without an up ends the old note")
        XCTAssertEqual(out.last, .noteOn(2, 69, 1), "velocity at least 1")
        out.removeAll()
        for t in [-1.0, 0, 1, .nan] { e.encode(.tilt(t)) { out.append($0) } }
        XCTAssertEqual(out, [.controlChange(0, 10, 0), .controlChange(0, 10, 64), .controlChange(0, 10, 127), .controlChange(0, 10, 64)])
        out.removeAll()
        e.encode(.touch(id: 5, phase: .up, x: 0, y: 0)) { out.append($0) }
        XCTAssertEqual(out, [.noteOff(2, 69)])
        e.encode(.touch(id: 5, phase: .up, x: 0, y: 0)) { out.append($0) }
        XCTAssertEqual(out.count, 1, "an up of a touch not held sends nothing")
    }

    func testEncodingMakesNoHeapAllocations() {
        var e = MPEEncoder(pitchMap: .exponential(octaves: 2))
        var count = 0
        var sum = 0
        func run(_ n: Int) {
        for i in 0..<n {
            let id = UInt32(i % 40)
            let phase: TouchPhase = i % 3 == 0 ? .down : i % 3 == 1 ? .move : .up
            e.encode(.touch(id: id, phase: phase, x: Double(i % 100) / 100, y: 0.5)) { m in count += 1; sum &+= Int(m.status) }
        }
        }
        run(100)  // warm up: one-time initialisations (lazy globals) are not per message
        count = 0
        alloc_counter_reset()
        alloc_counter_watch_this_thread(1)
        run(10_000)
        alloc_counter_watch_this_thread(0)
        XCTAssertGreaterThan(count, 10_000)
        XCTAssertEqual(alloc_counter_count(), 0, "heap allocations while encoding \(count) messages")
    }

    /// The real-time entry points (a plugin's render thread): the same messages as the
    /// closure ones, and no heap allocation across 20 000 events of 40 touches (channel
    /// steals included) and a release of all.
    func testBurstEntryPointsMatchTheClosureOnesAndAllocateNothing() {
        var a = MPEEncoder(pitchMap: .exponential(octaves: 2)), b = a
        var rng = SplitMix(seed: 11)
        var events: [ControlEvent] = []
        for _ in 0..<20_000 {
            let id = UInt32(rng.next() % 40)
            switch rng.next() % 5 {
            case 0: events.append(.touch(id: id, phase: .down, x: Double(rng.next() % 1000) / 1000, y: 0.7))
            case 1: events.append(.pitched(id: id + 100, phase: .down, ratio: 1.25, gain: 0.6, y: 0.1))
            case 2: events.append(.touch(id: id, phase: .move, x: Double(rng.next() % 1000) / 1000, y: 0.3))
            case 3: events.append(.touch(id: id, phase: .up, x: 0, y: 0))
            default: events.append(.tilt(Double(rng.next() % 200) / 100 - 1))
            }
        }
        var closureOut: [MIDIMessage] = []
        for e in events { a.encode(e, source: 1) { closureOut.append($0) } }
        a.releaseAll { closureOut.append($0) }
        var bursts = [MIDIBurst](repeating: MIDIBurst(), count: events.count + 1)
        alloc_counter_reset()
        events.withUnsafeBufferPointer { input in
            bursts.withUnsafeMutableBufferPointer { out in
                alloc_counter_watch_this_thread(1)
                var i = 0
                while i < input.count { b.encode(input[i], source: 1, into: &out[i]); i += 1 }
                b.releaseAll(into: &out[input.count])
                alloc_counter_watch_this_thread(0)
            }
        }
        XCTAssertEqual(alloc_counter_count(), 0)
        XCTAssertEqual(bursts.flatMap { $0.messages }, closureOut)
        XCTAssertGreaterThan(b.stolen, 100, "channels were stolen")
        XCTAssertEqual((0..<MPEEncoder.configurationCount).map(MPEEncoder.configurationMessage), configured(MPEEncoder()))
    }

    /// A touch's reverb and chorus sends go out as its channel's CC 91 and CC 93 (the delay's
    /// has no GM controller: nothing), and MIDI in reads them back as that note's sends.
    func testSendsGoOutAsCC91AndCC93OnTheNotesChannel() {
        var encoder = MPEEncoder()
        var decoder = MIDIInterpreter()
        encoder.configuration { decoder.interpret($0) { _ in } }
        var out: [MIDIMessage] = [], back: [ControlEvent] = []
        for e: ControlEvent in [.touch(id: 7, phase: .down, x: 0.5, y: 1), .send(id: 7, bus: .reverb, level: 0.5),
                                .send(id: 7, bus: .delay, level: 1), .send(id: 7, bus: .chorus, level: 1)] {
            encoder.encode(e) { m in out.append(m); decoder.interpret(m) { back.append($0) } }
        }
        let ccs = out.filter { $0.kind == 0xB0 && ($0.data1 == 91 || $0.data1 == 93) }
        let noteChannel = out.first { $0.kind == 0x90 }!.channel
        XCTAssertEqual(ccs.map { [Int($0.channel), Int($0.data1), Int($0.data2)] }, [[noteChannel, 91, 64], [noteChannel, 93, 127]])
        let sends = back.compactMap { e -> SendBus? in if case let .send(_, bus, _) = e { return bus }; return nil }
        XCTAssertEqual(sends, [.reverb, .chorus], "read back as the note's sends")
    }
}
