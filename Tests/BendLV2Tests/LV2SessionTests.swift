// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import XCTest
import BendLV2Host
import BendTestSupport

/// The plugin as a DAW session keeps it: no path asked of the host inside instantiate
/// (Ardour 7 aborts on one), the pairing file of each instance its own (0600) with its
/// port kept in the state, a restored SFZ instrument found through the host's links to
/// it, and the bundle's factory presets loaded as a host's preset menu loads them.
final class LV2SessionTests: XCTestCase {
    let toneURI = "urn:bendsynth:lv2:tone"
    var folder: LV2TestFolder!
    override func setUpWithError() throws { folder = try LV2TestFolder() }
    override func tearDown() { folder = nil }

    func host(stateFolder: String? = nil, makePath: Bool = true) throws -> LV2PluginHost {
        _ = try LV2Bundle.build()
        let h = try LV2PluginHost(uri: LV2Bundle.uri, lv2Path: LV2Bundle.path, rate: 48_000, maxBlock: 1024,
                                  stateFolder: stateFolder ?? folder.path, makePath: makePath)
        h["interpolation"] = 1
        return h
    }

    /// The pitch of key `key` held for 0.25 s, then released.
    func pitch(_ h: LV2PluginHost, key: UInt8) -> Double {
        h.midi([0x90, key, 100], at: 0)
        let out = (0..<12).flatMap { _ in h.runInterleaved(frames: 1024) }
        h.midi([0x80, key, 0], at: 0)
        for _ in 0..<4 { _ = h.runInterleaved(frames: 1024) }
        return Measure.peakFrequency(Array(Measure.channel(out, 0)[4800...]), rate: 48_000)
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    /// instantiate and the first blocks ask the host for no path; the pad's first start
    /// does, once, and writes its address there, readable by its owner only.
    func testInstantiateAsksForNoPathAndThePadWritesItsOwnPrivateFile() throws {
        setenv("XDG_CONFIG_HOME", folder.url.appendingPathComponent("config").path, 1)
        let h = try host()
        XCTAssertEqual(h.makePathCallsInInstantiate, 0, "state:makePath inside instantiate")
        for _ in 0..<4 { _ = h.runInterleaved(frames: 256) }
        XCTAssertEqual(h.makePathCalls, 0, "no path asked while the pad is off")
        h["web"] = 1
        _ = h.runInterleaved(frames: 256)  // run() asks the worker; the worker starts the pad
        XCTAssertEqual(h.makePathCalls, 1, h.log())
        let file = folder.url.appendingPathComponent("web-pad-url.txt").path
        let url = try String(contentsOfFile: file, encoding: .utf8)
        XCTAssertTrue(url.hasPrefix("https://") && url.contains("/#"), url)
        XCTAssertEqual(try mode(file), 0o600, "the file holds the pairing token")
    }

    /// Two instances in one process, the host without makePath: each writes its own file
    /// in $XDG_STATE_HOME/bendsynth (0600), on its own port with its own token; each file
    /// goes with its instance. Saved and restored into a new instance (the first gone),
    /// the pad takes the saved port again.
    func testTwoInstancesKeepTheirOwnPairingFilesAndAPadKeepsItsPortAcrossSessions() throws {
        setenv("XDG_CONFIG_HOME", folder.url.appendingPathComponent("config").path, 1)
        let stateHome = folder.url.appendingPathComponent("state")
        setenv("XDG_STATE_HOME", stateHome.path, 1)
        defer { unsetenv("XDG_STATE_HOME") }
        let padFolder = stateHome.appendingPathComponent("bendsynth")
        func files() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: padFolder.path)) ?? []).sorted() }
        var a: LV2PluginHost? = try host(makePath: false)
        var b: LV2PluginHost? = try host(makePath: false)
        for h in [a!, b!] {
            h["web"] = 1
            _ = h.runInterleaved(frames: 256)
        }
        let made = files()
        XCTAssertEqual(made.count, 2, "\(made)")
        let urls = try made.map { try String(contentsOfFile: padFolder.appendingPathComponent($0).path, encoding: .utf8) }
        let ports = made.compactMap { name in Int(name.dropFirst("web-pad-url-".count).dropLast(".txt".count)) }
        XCTAssertEqual(Set(ports).count, 2, "two ports: \(made)")
        for (name, port) in zip(made, ports) {
            XCTAssertEqual(try mode(padFolder.appendingPathComponent(name).path), 0o600, name)
            XCTAssertTrue(urls.contains { $0.contains(":\(port)/#") }, "\(urls)")
        }
        XCTAssertNotEqual(urls[0].split(separator: "#").last, urls[1].split(separator: "#").last, "each its own token")
        XCTAssertEqual(a!.makePathCalls + b!.makePathCalls, 0)

        // The second instance's port, saved after its pad was turned off; both instances
        // gone, their files with them.
        b!["web"] = 0
        _ = b!.runInterleaved(frames: 256)
        let state = try b!.saveState()
        let bLog = b!.log()
        let bPort = try XCTUnwrap(ports.first { bLog.contains(":\($0)/#") }, bLog)
        a = nil
        b = nil
        XCTAssertEqual(files(), [], "an instance's file goes with it")
        let c = try host(makePath: false)
        try c.restoreState(state)
        c["web"] = 1
        _ = c.runInterleaved(frames: 256)
        XCTAssertEqual(files(), ["web-pad-url-\(bPort).txt"], "the saved port taken again")
    }

    /// An SFZ instrument saved in a session is restored through the host's link to it
    /// (hosts keep outside files as symbolic links in the state folder): its samples are
    /// found beside the real file, every key at its pitch. A link whose instrument is
    /// gone is logged with the link and its target, and the tone in use plays on.
    func testAnSFZRestoredThroughTheHostsLinkFindsItsSamples() throws {
        let instrument = folder.url.appendingPathComponent("instrument")
        try FileManager.default.createDirectory(at: instrument, withIntermediateDirectories: true)
        writeSoundFile(instrument.appendingPathComponent("low.wav").path, Measure.sineTone(frames: 12_000, cycles: 75), rate: 48_000)
        writeSoundFile(instrument.appendingPathComponent("high.wav").path, Measure.sineTone(frames: 12_000, cycles: 125), rate: 48_000)
        let sfz = instrument.appendingPathComponent("two.sfz").path
        try """
        <group> loop_mode=loop_continuous
        <region> sample=low.wav lokey=0 hikey=63 pitch_keycenter=60
        <region> sample=high.wav lokey=64 hikey=127 pitch_keycenter=72
        """.write(toFile: sfz, atomically: true, encoding: .utf8)
        let session = folder.url.appendingPathComponent("session/state")
        try FileManager.default.createDirectory(at: session, withIntermediateDirectories: true)
        let link = session.appendingPathComponent("two.sfz").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: sfz)

        let first = try host()
        first["tone_note"] = 60
        _ = first.runInterleaved(frames: 256)
        first.setPath(toneURI, to: sfz, at: 0)
        _ = first.runInterleaved(frames: 256)
        // The state as the host keeps it: the tone's path is the link in its folder.
        let state = try first.saveState().replacingOccurrences(of: sfz, with: link)
        XCTAssertTrue(state.contains(link), state)

        let second = try host()
        try second.restoreState(state)
        _ = second.runInterleaved(frames: 256)
        XCTAssertEqual(second.pathsSet().last?.path, sfz, "the real file is the tone in use")
        XCTAssertFalse(second.log().contains("not found"), second.log())
        XCTAssertEqual(pitch(second, key: 62), 300 * pow(2, 2.0 / 12), accuracy: 0.5, "the low zone, 2 keys up")
        XCTAssertEqual(pitch(second, key: 76), 500 * pow(2, 4.0 / 12), accuracy: 0.5, "the high zone, 4 keys up")

        // The instrument's folder gone: said with the link and the file it pointed at.
        try FileManager.default.removeItem(at: instrument)
        let third = try host()
        try third.restoreState(state)
        _ = third.runInterleaved(frames: 256)
        let errors = third.log(type: "http://lv2plug.in/ns/ext/log#Error")
        XCTAssertTrue(errors.contains(link) && errors.contains(sfz) && errors.contains("gone"), errors)
        XCTAssertEqual(pitch(third, key: 69), 440 * pow(2, 9.0 / 12), accuracy: 0.5, "the bundle's tone plays on (A4 at the saved tone note, 60)")
        // Saved while the instrument is missing: its path is kept, not the fallback's.
        XCTAssertTrue(try third.saveState().contains(link), "the missing tone kept in the state")
    }

    /// The bundle's factory presets, as lilv lists and loads them: each sounds, the Soft
    /// keys instrument at A4 for key 69 with its 30 ms attack, the in-tune pad's controls set.
    func testTheFactoryPresetsLoadAndSound() throws {
        let h = try host()
        let presets = h.presets()
        XCTAssertEqual(presets.map(\.label).sorted(), ["Default tone", "In-tune pad", "Soft keys (SFZ)"], "\(presets)")
        for preset in presets {
            try h.loadPreset(preset.uri)
            _ = h.runInterleaved(frames: 256)
            XCTAssertFalse(h.log(type: "http://lv2plug.in/ns/ext/log#Error").contains("tone"), "\(preset.label): \(h.log())")
            XCTAssertEqual(pitch(h, key: 69), 440, accuracy: 0.5, preset.label)
        }
        try h.loadPreset("urn:bendsynth:lv2:preset:in-tune-pad")
        XCTAssertEqual(h["pitch_map"], 2)
        XCTAssertEqual(h["round"], 2)
        // Soft keys in a new instance (no release sounding on): its attack, 30 ms to full
        // level (the default tone's is 4 ms).
        let fresh = try host()
        try fresh.loadPreset("urn:bendsynth:lv2:preset:soft-keys")
        _ = fresh.runInterleaved(frames: 256)
        XCTAssertTrue(fresh.pathsSet().last?.path.hasSuffix("/soft-keys.sfz") ?? false, "\(fresh.pathsSet())")
        fresh.midi([0x90, 69, 100], at: 0)
        let out = Measure.channel((0..<8).flatMap { _ in fresh.runInterleaved(frames: 1024) }, 0)
        let early = Measure.rms(out[120..<360]), full = Measure.rms(out[4800..<8000])
        XCTAssertLessThan(Measure.dB(early / full), -12, "2.5–7.5 ms into a 30 ms attack")
        XCTAssertGreaterThan(Measure.dB(full), -30, "it sounds")
    }
}
