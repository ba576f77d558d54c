// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// bendsynth.lv2 in a real DAW: Debian's Ardour 7 headless (`ArdourSession`). A session
/// gets a MIDI track with bendsynth; five notes are recorded through Ardour's virtual
/// keyboard; the session is saved, opened again and saved (`ardour7-lua`), then exported
/// (`ardour7-export`, a third open). In the exported WAV each note sounds at its pitch
/// (FFT peak, within `centsAllowed`) and well above the silence before it — once with the
/// default tone, once with an SFZ instrument and a Scala scale set in the plugin's state
/// (an LV2 user preset loaded before the save) that the reopen must keep.
final class ArdourTests: XCTestCase {
    /// The keys played, one a second (`ardour/record.lua`: 0.6 s each from 0.5 s).
    static let keys = [57, 60, 64, 69, 72]
    static let rate = 48_000.0
    static let centsAllowed = 3.0

    override func setUpWithError() throws {
        guard ArdourSession.installed else {
            throw XCTSkip("Debian's ardour (ardour7-lua, ardour7-export) is not installed; `make test` installs it")
        }
        _ = try LV2Bundle.build()
    }

    /// The default tone: key n at 440·2^((n − 69)/12) Hz (tone_note 69).
    func testNotesRecordedInArdourExportAtTheirPitchesAfterSaveAndReopen() throws {
        let session = try ArdourSession()
        defer { session.remove() }
        let clock = Date()
        let said = try session.record(uri: LV2Bundle.uri, keys: Self.keys)
        XCTAssertTrue(said.contains("plugin bendsynth"), session.transcript)
        XCTAssertTrue(said.contains { $0.hasPrefix("region ") }, "a take was recorded\n\(session.transcript)")
        try session.reopen(uri: LV2Bundle.uri)
        let wav = try session.export()
        let expected = Self.keys.map { 440 * pow(2, Double($0 - 69) / 12) }
        try Self.checkNotes(wav, expected: expected, label: "default tone", transcript: session.transcript)
        print("Ardour, default tone: record, reopen, export in \(String(format: "%.1f", Date().timeIntervalSince(clock))) s")
    }

    /// An SFZ instrument of two sine regions, each off its key's 12-TET pitch (250 Hz on
    /// C4, 450 Hz on A4), and a 5-limit just scale, set by a user preset before the save.
    /// After save → reopen → export, key k sounds where the instrument and the scale put
    /// it (`sfzJustHz`). A tone lost on reopen (the default tone through the scale) is 39
    /// to 79 cents off on every key; a scale lost (the SFZ in 12-TET), 15.6 on keys 60 and 72.
    func testSFZToneAndScaleInThePluginStateSurviveSaveReopenAndExport() throws {
        let session = try ArdourSession()
        defer { session.remove() }
        let clock = Date()
        let sfz = session.folder.appendingPathComponent("instrument")
        try FileManager.default.createDirectory(at: sfz, withIntermediateDirectories: true)
        for (name, hz) in [("low.wav", 250), ("high.wav", 450)] {
            // 2 s of whole cycles (no loop: longer than a note at any key played here).
            writeSoundFile(sfz.appendingPathComponent(name).path, Measure.sineTone(frames: 96_000, cycles: 2 * hz), rate: 48_000)
        }
        let instrument = sfz.appendingPathComponent("instrument.sfz"), scale = sfz.appendingPathComponent("just.scl")
        try """
            <region> sample=low.wav lokey=0 hikey=\(Self.lowHighKey) pitch_keycenter=60
            <region> sample=high.wav lokey=\(Self.lowHighKey + 1) hikey=127 pitch_keycenter=69

            """.write(to: instrument, atomically: true, encoding: .utf8)
        try (["! just.scl", "5-limit just intonation, 12 notes", " 12", "!"] + Self.just.dropFirst().map { " \($0.0)/\($0.1)" } + [" 2/1", ""])
            .joined(separator: "\n").write(to: scale, atomically: true, encoding: .utf8)
        let label = "bendsynth ArdourTests SFZ"
        try Self.writePreset(in: session.presets, label: label, tone: instrument, scale: scale)

        let said = try session.record(uri: LV2Bundle.uri, keys: Self.keys, preset: label)
        XCTAssertTrue(said.contains { $0.hasPrefix("preset \(label)") }, session.transcript)
        // The state as Ardour saved it: the two files' paths (Ardour links them into the
        // session: plugins/N/stateM/instrument.sfz → ../../../externals/instrument.sfz → ours).
        let states = Self.stateFiles(in: session.sessionFolder)
        XCTAssertTrue(states.contains { $0.contains("<urn:bendsynth:lv2:tone>") && $0.contains("instrument.sfz") }, "the saved state names the tone: \(states)")
        XCTAssertTrue(states.contains { $0.contains("<urn:bendsynth:lv2:scale>") && $0.contains("just.scl") }, "the saved state names the scale: \(states)")
        // The reopen finds the files through the session's state only.
        try FileManager.default.removeItem(at: session.presets.appendingPathComponent("ardourtest.lv2"))
        try session.reopen(uri: LV2Bundle.uri)
        let wav = try session.export()
        let expected = Self.keys.map(Self.sfzJustHz)
        // What the test tells apart (cents from the expected pitch): the default tone through
        // the scale (a tone lost on reopen) on every key, the SFZ in 12-TET (a scale lost)
        // on two.
        let lostTone = zip(Self.keys, expected).map { 1200 * log2(440 * Self.justRatio($0) / $1) }
        let lostScale = zip(Self.keys, expected).map { 1200 * log2(Self.sfzHz(Double($0)) / $1) }
        XCTAssertTrue(lostTone.allSatisfy { abs($0) > 10 * Self.centsAllowed }, "\(lostTone)")
        XCTAssertEqual(lostScale.filter { abs($0) > 5 * Self.centsAllowed }.count, 2, "\(lostScale)")
        try Self.checkNotes(wav, expected: expected, label: "SFZ + just scale", transcript: session.transcript)
        print("Ardour, SFZ and scale: record, reopen, export in \(String(format: "%.1f", Date().timeIntervalSince(clock))) s")
    }

    // MARK: The SFZ case's instrument and scale

    /// The low region's last key (C4's sample up to it, A4's above).
    static let lowHighKey = 65
    /// 5-limit just intonation: the 12 steps' ratios (1/1 first).
    static let just: [(Int, Int)] = [(1, 1), (16, 15), (9, 8), (6, 5), (5, 4), (4, 3), (45, 32), (3, 2), (8, 5), (5, 3), (9, 5), (15, 8)]

    /// Where key k sounds with the instrument and the scale: the scale's root on the tone
    /// note (69), so k plays ratio r = just[(k − 69) mod 12] · 2^⌊(k − 69)/12⌋; the SFZ is
    /// placed with key 69 at ratio 1 (LV2.md), so r stands for the pitch p = 69 + 12·log2 r
    /// in keys, and p plays on the region whose keys hold it, at the region's sample
    /// pitch × 2^((p − pitch_keycenter)/12) (SOUNDS.md: a region plays its own keys at
    /// their own pitch).
    static func sfzJustHz(_ key: Int) -> Double { sfzHz(69 + 12 * log2(justRatio(key))) }

    /// The scale's ratio on `key`: just[(k − 69) mod 12] · 2^⌊(k − 69)/12⌋.
    static func justRatio(_ key: Int) -> Double {
        let steps = key - 69, octave = Int((Double(steps) / 12).rounded(.down)), degree = steps - 12 * octave
        return Double(just[degree].0) / Double(just[degree].1) * pow(2, Double(octave))
    }

    /// The instrument's pitch (Hz) at `p` (keys): on the region holding p's nearest key.
    static func sfzHz(_ p: Double) -> Double {
        p.rounded() <= Double(lowHighKey) ? 250 * pow(2, (p - 60) / 12) : 450 * pow(2, (p - 69) / 12)
    }

    /// A user preset bundle `ardourtest.lv2` in `folder` (an LV2_PATH entry): the plugin's
    /// state with the tone and the scale as file URIs (lilv hands them to the plugin's
    /// restore as atom:Path).
    static func writePreset(in folder: URL, label: String, tone: URL, scale: URL) throws {
        let bundle = folder.appendingPathComponent("ardourtest.lv2")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let prefixes = """
            @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
            @prefix pset: <http://lv2plug.in/ns/ext/presets#> .
            @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
            @prefix state: <http://lv2plug.in/ns/ext/state#> .

            """
        try (prefixes + """
            <urn:bendsynth:test:ardour-sfz> a pset:Preset ; lv2:appliesTo <\(LV2Bundle.uri)> ; rdfs:seeAlso <preset.ttl> .

            """).write(to: bundle.appendingPathComponent("manifest.ttl"), atomically: true, encoding: .utf8)
        try (prefixes + """
            <urn:bendsynth:test:ardour-sfz> a pset:Preset ;
                lv2:appliesTo <\(LV2Bundle.uri)> ;
                rdfs:label "\(label)" ;
                state:state [
                    <\(LV2Bundle.uri):tone> <\(tone.absoluteURL.absoluteString)> ;
                    <\(LV2Bundle.uri):scale> <\(scale.absoluteURL.absoluteString)>
                ] .

            """).write(to: bundle.appendingPathComponent("preset.ttl"), atomically: true, encoding: .utf8)
    }

    /// The text of every state.ttl Ardour saved for a plugin in the session.
    static func stateFiles(in session: URL) -> [String] {
        let plugins = session.appendingPathComponent("plugins")
        guard let walk = FileManager.default.enumerator(atPath: plugins.path) else { return [] }
        return walk.compactMap { $0 as? String }.filter { $0.hasSuffix("state.ttl") }
            .compactMap { try? String(contentsOf: plugins.appendingPathComponent($0), encoding: .utf8) }
    }

    // MARK: Measuring the export

    /// Each recorded note in the exported WAV `path` (left channel) against `expected`
    /// (Hz, in `keys` order): the first sound is the first note; note i starts i seconds
    /// after it. Measured 0.15…0.45 s into each note: the FFT peak (cents off `expected`)
    /// and the RMS level; 0.75…0.95 s in (past the note's 0.6 s and its 8 ms release):
    /// the level of the gap. The 0.4 s before the first note is the silence floor.
    static func checkNotes(_ path: String, expected: [Double], label: String, transcript: String,
                           file: StaticString = #filePath, line: UInt = #line) throws {
        let left = try JALVTests.readLeft(path)
        let seconds = { (s: Double) in Int(s * rate) }
        guard let start = left.firstIndex(where: { abs($0) > 1e-4 }) else {
            XCTFail("\(label): the export is silent (\(left.count) frames)\n\(transcript)", file: file, line: line)
            return
        }
        // The take starts with the transport; the first note 0.5 s in (one cycle late at most).
        XCTAssertEqual(Double(start) / rate, 0.5, accuracy: 0.1, "\(label): the first note's start (s)", file: file, line: line)
        XCTAssertGreaterThanOrEqual(left.count, start + seconds(Double(expected.count) - 0.05), "\(label): the export holds every note", file: file, line: line)
        let floor = Measure.dB(Measure.rms(left[max(0, start - seconds(0.45))..<max(0, start - seconds(0.05))]))
        var report = ["\(label): silence before the first note \(String(format: "%.1f", floor)) dBFS"]
        for (i, hz) in expected.enumerated() {
            let note = start + seconds(Double(i)), a = note + seconds(0.15), b = note + seconds(0.45)
            let gap = (note + seconds(0.75))..<min(left.count, note + seconds(0.95))
            guard b <= left.count else { XCTFail("\(label): note \(i) is past the export's end", file: file, line: line); break }
            let peak = Measure.peakFrequency(Array(left[a..<b]), rate: rate)
            let cents = 1200 * log2(peak / hz)
            let level = Measure.dB(Measure.rms(left[a..<b]))
            let gapLevel = gap.isEmpty ? -.infinity : Measure.dB(Measure.rms(left[gap]))
            report.append(String(format: "key %d: %.3f Hz (expected %.3f, %+.3f cents), %.1f dBFS, gap after it %.1f dBFS",
                                 keys[i], peak, hz, cents, level, gapLevel))
            XCTAssertEqual(cents, 0, accuracy: centsAllowed, "\(label): key \(keys[i]) at \(peak) Hz, expected \(hz)", file: file, line: line)
            XCTAssertGreaterThan(level, -30, "\(label): key \(keys[i])'s level (dBFS)", file: file, line: line)
            XCTAssertGreaterThan(level - floor, 60, "\(label): key \(keys[i]) above the silence (dB)", file: file, line: line)
            XCTAssertLessThan(gapLevel, level - 60, "\(label): key \(keys[i]) ended before the next (dB)", file: file, line: line)
        }
        print(report.joined(separator: "\n  "))
    }
}
