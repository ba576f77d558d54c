// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendEngine
import BendTestSupport
import CAllocCounter

/// A sound of several regions: a touch starts on the region its pitch and gain select,
/// round robins take turns, a new sound comes in without a lock while the old one plays
/// on for its held voices, and a voice crosses zones only past the hysteresis. Measured
/// in the rendered output (frequencies, voice counts, allocations).
final class SoundTests: XCTestCase {
    static let rate = 48_000.0

    /// A region looping a sine of `hz` (a whole number of cycles in 4800 frames), placed.
    static func region(_ hz: Int, ratio: ClosedRange<Float> = 0...100, gain: ClosedRange<Float> = 0...2,
                       sequence: (length: UInt32, position: UInt32) = (1, 0), below: Int32 = -1, above: Int32 = -1) -> SoundRegion {
        let cycles = hz / 10
        let table = ToneTable(samples: Measure.sineTone(frames: 4800, cycles: cycles), rate: rate)
        let placement = RegionPlacement(ratioLow: ratio.lowerBound, ratioHigh: ratio.upperBound, gainLow: gain.lowerBound,
                                        gainHigh: gain.upperBound, stayLow: ratio.lowerBound / 1.0116, stayHigh: ratio.upperBound * 1.0116,
                                        pitchScale: 1, gain: 1, envelope: nil, sequenceLength: sequence.length,
                                        sequencePosition: sequence.position, below: below, above: above, correlationBelow: 0,
                                        correlationAbove: 0, cycleFrames: 0, cycleAnchor: 0)
        return SoundRegion(looping: table).placed(placement)
    }

    /// The peak frequency of frames 2400 ..< 7200 of one touch at `ratio` and `gain`, and
    /// the voices sounding then (0: no region took it).
    func play(_ h: RenderHarness, id: UInt32, ratio: Float, gain: Float) -> (hz: Double, voices: Int) {
        let start = h.mixer.position
        let out = h.render(frames: 9600, events: [EngineEvent(frame: start, kind: .down, key: h.key(id), value: ratio, gain: gain),
                                                  EngineEvent(frame: start + 7200, kind: .up, key: h.key(id))])
        let voices = h.mixer.activeVoices
        _ = h.render(frames: 2400)
        let left = Array(Measure.channel(out, 0)[2400..<7200])
        return (Measure.rms(left) > 1e-4 ? Measure.peakFrequency(left, rate: Self.rate) : 0, voices)
    }

    func testTouchesStartOnTheRegionTheirPitchAndGainSelect() {
        let sound = Sound(regions: [Self.region(220, ratio: 0.5...1), Self.region(330, ratio: 1...2, gain: 0...0.5),
                                    Self.region(550, ratio: 1...2, gain: 0.5...2)])
        defer { sound.deallocateWithTables() }
        let h = RenderHarness(voices: 4, sound: sound)
        defer { h.free() }
        XCTAssertEqual(play(h, id: 1, ratio: 0.75, gain: 0.8).hz, 220 * 0.75, accuracy: 1)
        XCTAssertEqual(play(h, id: 2, ratio: 1.25, gain: 0.3).hz, 330 * 1.25, accuracy: 1)
        XCTAssertEqual(play(h, id: 3, ratio: 1.25, gain: 0.7).hz, 550 * 1.25, accuracy: 1)
        let outside = play(h, id: 4, ratio: 3, gain: 0.7)
        XCTAssertEqual(outside.hz, 0, "no region holds ratio 3: no voice")
        XCTAssertEqual(outside.voices, 0)
    }

    func testRoundRobinTakesTurns() {
        let sound = Sound(regions: (0..<3).map { Self.region([300, 400, 500][$0], sequence: (3, UInt32($0))) })
        defer { sound.deallocateWithTables() }
        let h = RenderHarness(voices: 4, sound: sound)
        defer { h.free() }
        let heard = (1...5).map { play(h, id: UInt32($0), ratio: 1, gain: 1).hz.rounded() }
        XCTAssertEqual(heard, [300, 400, 500, 300, 400])
    }

    /// A sound replaced while a touch holds a voice: the voice plays the old sound on, a new
    /// touch the new one; once the old voice ends the old sound comes back (`takeRetired`);
    /// the render thread allocates nothing through it all.
    func testAReplacedSoundPlaysOnForItsVoicesAndComesBackWhenTheyEnd() {
        let old = Sound(region: Self.region(300)), new = Sound(region: Self.region(700))
        defer { old.deallocateWithTables(); new.deallocateWithTables() }
        let h = RenderHarness(voices: 4, sound: old)
        defer { h.free() }
        let period = 256, periods = 60
        // Touch 1 from frame 0; the new sound handed over after period 19; touch 2 in period
        // 20; touch 1 ends in period 40.
        let events = [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 0.5),
                      EngineEvent(frame: UInt64(20 * period + 10), kind: .down, key: h.key(2), value: 1, gain: 0.5),
                      EngineEvent(frame: UInt64(40 * period), kind: .up, key: h.key(1))]
        let out = UnsafeMutableBufferPointer<Float>.allocate(capacity: 2 * period * periods)
        defer { out.deallocate() }
        _ = h.ring
        var counted: UInt64 = 0
        events.withUnsafeBufferPointer { ev in
            var next = 0
            for p in 0..<periods {
                if p == 20 { XCTAssertNil(h.mixer.replace(with: new)) }  // a control thread's call, not counted
                alloc_counter_reset()
                alloc_counter_watch_this_thread(1)
                h.renderPeriod(into: out.baseAddress! + 2 * period * p, frames: period, events: ev, next: &next)
                alloc_counter_watch_this_thread(0)
                counted += alloc_counter_count()
            }
        }
        XCTAssertEqual(counted, 0, "heap allocations on the render thread across the swap")
        let left = Measure.channel(Array(out), 0)
        let both = Array(left[(22 * period)..<(40 * period)]), after = Array(left[(42 * period)...])
        XCTAssertEqual(Measure.peaks(both, rate: Self.rate, floorDB: -20).map { $0.rounded() }.sorted(), [300, 700],
                       "the held voice plays the old sound, the new touch the new one")
        XCTAssertEqual(Measure.peakFrequency(after, rate: Self.rate), 700, accuracy: 1)
        let retired = h.mixer.takeRetired()
        XCTAssertNotNil(retired, "the old sound came back once its voice ended")
        XCTAssertEqual(retired?[0].held.length, old[0].held.length)
        XCTAssertNil(h.mixer.takeRetired())
        XCTAssertEqual(h.mixer.heldSounds.count, 1)
    }

    /// Sounds replaced faster than their voices end: past the mixer's slots, the voices of
    /// a replaced sound fade out fast (a steal) so the newest sound comes in.
    func testSoundsReplacedPastTheSlotsFadeTheOldVoices() {
        let sounds = (0..<10).map { Sound(region: Self.region(200 + 50 * $0)) }
        defer { sounds.forEach { $0.deallocateWithTables() } }
        let h = RenderHarness(voices: 16, sound: sounds[0])
        defer { h.free() }
        for k in 1..<10 {
            _ = h.render(frames: 512, events: [EngineEvent(frame: h.mixer.position, kind: .down, key: h.key(UInt32(k)), value: 1, gain: 0.1)])
            h.mixer.replace(with: sounds[k])
        }
        _ = h.render(frames: 4800)
        // Nine touches held on nine sounds, but at most 8 sounds at once: the first two
        // sounds' voices were faded out for the ninth and tenth sounds to come in (the
        // ninth touch came while the slots were full: it plays the eighth sound).
        let last = h.render(frames: 4800, events: [EngineEvent(frame: h.mixer.position, kind: .down, key: h.key(99), value: 1, gain: 0.1)])
        XCTAssertEqual(h.mixer.activeVoices, 8)
        XCTAssertTrue(Measure.peaks(Array(Measure.channel(last, 0)[2400...]), rate: Self.rate, floorDB: -30).contains { abs($0 - 650) < 2 },
                      "the newest sound plays")
        var back = 0
        while h.mixer.takeRetired() != nil { back += 1 }
        XCTAssertEqual(back, 3, "the first two sounds and the ninth (replaced before any touch played it)")
    }

    /// A finger resting 10 cents past a zone's edge (inside the 20-cent hysteresis) stays on
    /// its zone; 30 cents past, it crosses (two voices while the crossfade runs).
    func testAZoneIsLeftOnlyPastItsHysteresis() {
        let edge = Float(1.0)
        let low = Self.region(300, ratio: 0.5...edge, above: 1), high = Self.region(600, ratio: edge...2, below: 0)
        let sound = Sound(regions: [low, high])
        defer { sound.deallocateWithTables() }
        for (cents, voices) in [(10.0, 1), (30.0, 2)] {
            let h = RenderHarness(voices: 4, sound: sound)
            let ratio = Float(pow(2, cents / 1200))
            _ = h.render(frames: 2048, events: [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 0.9, gain: 0.5),
                                                 EngineEvent(frame: 1024, kind: .move, key: h.key(1), value: ratio, gain: 0.5)])
            XCTAssertEqual(h.mixer.activeVoices, voices, "\(cents) cents past the edge")
            let later = h.render(frames: 4800)
            XCTAssertEqual(h.mixer.activeVoices, 1)
            XCTAssertEqual(Measure.peakFrequency(Array(Measure.channel(later, 0)[1200...]), rate: Self.rate),
                           Double(cents == 10 ? 300 : 600) * Double(ratio), accuracy: 1)
            h.free()
        }
    }

    /// A zone split into two velocity layers is crossed into on the layer of the touch's
    /// velocity, and a zone of another round robin length too (their neighbours differ).
    func testABendCrossesIntoAZoneOfOtherLayers() {
        let low = Self.region(300, ratio: 0.5...1, above: 1)
        let soft = Self.region(500, ratio: 1...2, gain: 0...0.5, below: 0)
        let loud = Self.region(700, ratio: 1...2, gain: 0.5...2, below: 0)
        let sound = Sound(regions: [low, soft, loud])
        defer { sound.deallocateWithTables() }
        for (gain, hz) in [(Float(0.3), 500.0), (0.8, 700)] {
            let h = RenderHarness(voices: 4, sound: sound)
            _ = h.render(frames: 2048, events: [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 0.75, gain: gain),
                                                 EngineEvent(frame: 1024, kind: .move, key: h.key(1), value: 1.5, gain: gain)])
            let later = h.render(frames: 4800)
            XCTAssertEqual(Measure.peakFrequency(Array(Measure.channel(later, 0)[1200...]), rate: Self.rate), hz * 1.5, accuracy: 1,
                           "velocity \(gain): the layer it started in")
            h.free()
        }
    }
}
