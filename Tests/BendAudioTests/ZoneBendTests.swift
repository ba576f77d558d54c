// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendEngine
import BendTestSupport
import Foundation
import XCTest

/// Bending across an SFZ instrument's zones: a finger sliding two octaves over eight
/// zones a major third apart (synthetic samples of known pitch, each with a marker
/// partial of its own and its cycle starting at a phase of its own) is heard as one voice
/// whose pitch, level and waveform go on without a step while the samples change under
/// it. Measured in the rendered output; the same measures run on the faults they catch.
final class ZoneBendTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    static let rate = 48_000.0
    /// The zones' keycenters: 46, 50, …, 74; zone k plays keys keycenter − 2 … + 1.
    static let keys = (0..<8).map { 46 + 4 * $0 }
    /// Zone k's marker: a partial at harmonic 11 + k, −16 dB under the fundamental.
    static func marker(_ k: Int) -> Int { 11 + k }
    static func hz(_ key: Double) -> Double { 440 * pow(2, (key - 69) / 12) }

    /// Zone k's sample: about 0.5 s of whole cycles at its key (8 harmonics 0.3/h and its
    /// marker), starting `shift` of a cycle in; a loop of the whole file.
    static func zoneSample(_ k: Int, shift: Double) -> [Float] {
        let f0 = hz(Double(keys[k]))
        let cycles = (0.5 * f0).rounded()
        let n = Int((cycles * rate / f0).rounded())
        let f = cycles * rate / Double(n)
        return (0..<n).map { i in
            let p = 2 * Double.pi * (f * Double(i) / rate + shift)
            var v = 0.0
            for h in 1...8 { v += 0.3 / Double(h) * sin(Double(h) * p) }
            return Float(v + 0.05 * sin(Double(marker(k)) * p))
        }
    }

    /// The eight-zone instrument, loaded at 48 kHz, ratio 1 at key 60.
    func eightZones() throws -> Sound {
        var sfz = "<control> default_path=./\n<global> loop_mode=loop_continuous\n"
        let shifts = [0.32, 0.15, 0.65, 0.07, 0.54, 0.37, 0.06, 0.51]
        for k in 0..<8 {
            writeSoundFile(dir + "/z\(k).wav", Self.zoneSample(k, shift: shifts[k]), rate: 48_000)
            sfz += "<region> sample=z\(k).wav lokey=\(Self.keys[k] - 2) hikey=\(Self.keys[k] + 1) pitch_keycenter=\(Self.keys[k])\n"
        }
        try sfz.write(toFile: dir + "/eight.sfz", atomically: true, encoding: .utf8)
        let defaults = InstrumentLoader.EnvelopeDefaults(attack: 0.004, decay: 0, sustain: 1, release: 0.008)
        return try InstrumentLoader.load(path: dir + "/eight.sfz", rate: Self.rate, reference: 60, envelope: defaults) { _ in }.sound
    }

    /// Key of the slide at time t: 48 until 0.2 s, up to 72 at 4.2 s.
    static func key(at t: Double) -> Double { t < 0.2 ? 48 : (t > 4.2 ? 72 : 48 + 24 * (t - 0.2) / 4) }

    /// The slide played by one touch (moves every 5 ms), the mono mix (left + right).
    func slide(_ sound: Sound, configure: (inout MixerConfiguration) -> Void = { _ in }) -> [Float] {
        let h = RenderHarness(voices: 8, period: 256, rate: Self.rate, sound: sound) {
            $0.interpolation = .cubic
            configure(&$0)
        }
        defer { h.free() }
        func ratio(_ t: Double) -> Float { Float(pow(2, (Self.key(at: t) - 60) / 12)) }
        var events = [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: ratio(0), gain: 0.8)]
        for i in 1...800 {
            let t = 0.2 + 4 * Double(i) / 800
            events.append(EngineEvent(frame: UInt64(t * Self.rate), kind: .move, key: h.key(1), value: ratio(t), gain: 0.8))
        }
        events.append(EngineEvent(frame: UInt64(4.5 * Self.rate), kind: .up, key: h.key(1)))
        let out = h.render(frames: Int(4.6 * Self.rate), events: events)
        return stride(from: 0, to: out.count, by: 2).map { out[$0] + out[$0 + 1] }
    }

    /// The fundamental's phase deviation from the slide's own, as a frequency deviation in
    /// cents, every millisecond from 0.3 to 4.1 s: a single-bin DFT of the mix heterodyned
    /// by the slide's phase over a Hann window of 4 periods.
    static func pitchTrack(_ x: [Float]) -> [Double] {
        var phase = [Double](repeating: 0, count: x.count)
        for n in 1..<x.count { phase[n] = phase[n - 1] + 2 * Double.pi * hz(key(at: Double(n) / rate)) / rate }
        var angles: [Double] = []
        for ms in 300...4100 {
            let centre = ms * 48
            let half = Int(2 * rate / hz(key(at: Double(centre) / rate)))
            var re = 0.0, im = 0.0
            for n in (centre - half)..<(centre + half) {
                let w = 0.5 - 0.5 * cos(Double.pi * Double(n - centre + half) / Double(half))
                re += w * Double(x[n]) * cos(phase[n]); im -= w * Double(x[n]) * sin(phase[n])
            }
            angles.append(atan2(im, re))
        }
        return zip(angles, angles.dropFirst()).enumerated().map { i, pair in
            var d = pair.1 - pair.0
            while d > Double.pi { d -= 2 * Double.pi }
            while d < -Double.pi { d += 2 * Double.pi }
            let f = hz(key(at: Double(301 + i) / 1000))
            return 1200 * log2((f + d / (2 * Double.pi * 0.001)) / f)
        }
    }

    /// RMS level in dB over 6 periods, every 5 ms from 0.3 to 4.1 s.
    static func levels(_ x: [Float]) -> [Double] {
        stride(from: Int(0.3 * rate), to: Int(4.1 * rate), by: 240).map { s in
            let w = Int((6 * rate / hz(key(at: Double(s) / rate))).rounded())
            return Measure.dB(Measure.rms(x[s..<(s + w)]))
        }
    }

    /// Which zone's marker is strongest, every 50 ms from 0.3 to 4.1 s.
    static func zones(_ x: [Float]) -> [Int] {
        stride(from: Int(0.3 * rate), to: Int(4.1 * rate), by: 2400).map { s in
            let f = hz(key(at: Double(s + 1024) / rate))
            let powers = (0..<8).map { LoopPlaybackTests.power(x[s..<(s + 2048)], Double(marker($0)) * f) }
            return powers.indices.max { powers[$0] < powers[$1] }!
        }
    }

    /// The largest sample step around each change of zone (±30 ms) over the largest in the
    /// 60 ms after it (the same sound at a slightly higher pitch): above 1 is a click.
    static func clickRatio(_ x: [Float]) -> Float {
        var worst: Float = 0
        let z = zones(x)
        for i in 1..<z.count where z[i] != z[i - 1] {
            // The change lies between sample points i − 1 and i: that stretch, widened by 30 ms.
            let a = Int(0.3 * rate) + (i - 1) * 2400 - 1440, b = Int(0.3 * rate) + i * 2400 + 1440
            worst = max(worst, Measure.maxStep(x[a..<b]) / Measure.maxStep(x[b..<(b + 2880)]))
        }
        return worst
    }

    func testATwoOctaveSlideAcrossEightZonesIsSmooth() throws {
        let sound = try eightZones()
        defer { sound.deallocateWithTables() }
        let x = slide(sound)
        let track = Self.pitchTrack(x)
        let steps = zip(track, track.dropFirst()).map { abs($1 - $0) }
        XCTAssertLessThan(steps.max()!, 5, "no step over 5 cents in 1 ms of the pitch track")
        XCTAssertLessThan(track.map(abs).max()!, 10, "the pitch follows the slide within 10 cents")
        let level = Self.levels(x)
        XCTAssertLessThan(level.max()! - level.min()!, 1, "the level stays within 1 dB")
        let z = Self.zones(x)
        XCTAssertEqual(z.first, 1)
        XCTAssertEqual(z.last, 6)
        XCTAssertTrue(zip(z, z.dropFirst()).allSatisfy { $1 == $0 || $1 == $0 + 1 }, "the marker moves up zone by zone: \(z)")
        XCTAssertEqual(Set(z), Set(1...6))
        XCTAssertLessThanOrEqual(Self.clickRatio(x), 1.05, "no click where the zone changes")
        print("zone slide: worst 1 ms pitch step \(steps.max()!) cents, level spread \(level.max()! - level.min()!) dB, click ratio \(Self.clickRatio(x))")

        // The measures see the faults they are for. The cycles not lined up (each zone's
        // crossing at the time, not the phase, its waveform left where it was): the pitch
        // track jumps and the level dips.
        let unaligned = Sound(regions: sound.regionList.map { r -> SoundRegion in
            var p = r.placement
            p.cycleFrames = 0
            return r.placed(p)
        })
        defer { unaligned.deallocate() }
        let y = slide(unaligned)
        let yTrack = Self.pitchTrack(y), yLevel = Self.levels(y)
        XCTAssertGreaterThan(zip(yTrack, yTrack.dropFirst()).map { abs($1 - $0) }.max()!, 5)
        XCTAssertGreaterThan(yLevel.max()! - yLevel.min()!, 1)
        // Then switched at once (a 1-frame crossfade): a click.
        XCTAssertGreaterThan(Self.clickRatio(slide(unaligned) { $0.zoneCrossfadeSeconds = 1 / Self.rate }), 1.05)
        // The equal-power law alone for these nearly identical zones: the level rises 3 dB
        // in every crossfade.
        let uncorrelated = Sound(regions: sound.regionList.map { r -> SoundRegion in
            var p = r.placement
            p.correlationBelow = 0
            p.correlationAbove = 0
            return r.placed(p)
        })
        defer { uncorrelated.deallocate() }
        let u = Self.levels(slide(uncorrelated))
        XCTAssertGreaterThan(u.max()! - u.min()!, 2)
    }
}
