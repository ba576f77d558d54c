// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import Foundation
import XCTest

/// The bundle as hosts and Debian see it: lv2_validate passes, lilv lists the plugin with
/// its ports, the shared object exports lv2_descriptor only and needs only libraries of
/// Debian packages (the Swift runtime is inside it).
final class LV2BundleTests: XCTestCase {
    func testLV2ValidatePassesOnTheBundle() throws {
        let bundle = try LV2Bundle.build()
        let r = try LV2Bundle.run(["lv2_validate"] + ["manifest.ttl", "bendsynth.ttl", "presets.ttl"].map { bundle.appendingPathComponent($0).path })
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("Found 0 errors"), r.output)
        XCTAssertFalse(r.output.contains("warning"), r.output)
    }

    func testLilvListsThePluginWithItsPorts() throws {
        _ = try LV2Bundle.build()
        let env = ["LV2_PATH": LV2Bundle.path]
        let ls = try LV2Bundle.run(["lv2ls"], environment: env)
        XCTAssertEqual(ls.output.split(separator: "\n").filter { $0.contains("bendsynth") }, [Substring(LV2Bundle.uri)], ls.output)
        let info = try LV2Bundle.run(["lv2info", LV2Bundle.uri], environment: env)
        XCTAssertEqual(info.status, 0, info.output)
        let symbols = info.output.split(separator: "\n").compactMap { line -> String? in
            let t = line.trimmingCharacters(in: .whitespaces)
            return t.hasPrefix("Symbol:") ? t.dropFirst("Symbol:".count).trimmingCharacters(in: .whitespaces) : nil
        }
        XCTAssertEqual(symbols, ["events_in", "events_out", "out_l", "out_r", "latency", "gain", "limiter", "interpolation",
                                 "bend_range", "tone_note", "pitch_map", "octaves", "scale_root", "round", "round_rate", "web", "voices",
                                 "reverb_send", "reverb_decay", "reverb_width", "delay_send", "delay_time", "delay_feedback", "chorus_send",
                                 "arp", "arp_rate", "arp_octaves", "arp_gate", "arp_swing", "arp_latch", "delay_sync"])
        // The TTL's defaults of the ports play and the plugin share are `SoundDefaults`'.
        var defaults: [String: Double] = [:], symbol = ""
        for line in info.output.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("Symbol:") { symbol = line.dropFirst("Symbol:".count).trimmingCharacters(in: .whitespaces) }
            if line.hasPrefix("Default:") { defaults[symbol] = Double(line.dropFirst("Default:".count).trimmingCharacters(in: .whitespaces)) }
        }
        XCTAssertEqual(defaults["gain"], SoundDefaults.gainDB, "gain")
        XCTAssertEqual(defaults["octaves"], SoundDefaults.octaves, "octaves")
        XCTAssertEqual(defaults["round"], SoundDefaults.padRounding == .hold ? 2 : SoundDefaults.padRounding == .initial ? 1 : 0, "round")
        XCTAssertEqual(defaults["pitch_map"], 0, "pitch_map: auto, which is SoundDefaults.exponential")
        XCTAssertTrue(info.output.contains("Class:             Instrument"), info.output)
        XCTAssertTrue(info.output.contains("Has latency:       yes, reported by port 4"), info.output)
    }

    func testSharedObjectExportsTheDescriptorAndNeedsOnlyDebianLibraries() throws {
        _ = try LV2Bundle.build()
        let so = LV2Bundle.sharedObject.path
        // Global definitions in the dynamic symbol table: lv2_descriptor alone.
        let nm = try LV2Bundle.run(["nm", "-D", "--defined-only", so])
        XCTAssertEqual(nm.status, 0, nm.output)
        let globals = nm.output.split(separator: "\n").compactMap { line -> Substring? in
            let f = line.split(separator: " ")
            return f.count == 3 && f[1].first!.isUppercase ? f[2] : nil
        }
        XCTAssertEqual(globals, ["lv2_descriptor"], nm.output)
        // Every library ldd resolves belongs to a Debian package; none is the toolchain's.
        let ldd = try LV2Bundle.run(["ldd", so])
        XCTAssertEqual(ldd.status, 0, ldd.output)
        XCTAssertFalse(ldd.output.contains("swift"), ldd.output)
        XCTAssertFalse(ldd.output.contains("not found"), ldd.output)
        let paths = ldd.output.split(separator: "\n").compactMap { line -> String? in
            let f = line.split(separator: " ")
            return f.count >= 3 && f[1] == "=>" ? String(f[2]) : nil
        }
        XCTAssertGreaterThan(paths.count, 3, ldd.output)
        for path in paths {
            let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            let owned = try [path, real, String(path.dropFirst("/usr".count * (path.hasPrefix("/usr") ? 1 : 0)))].contains {
                try LV2Bundle.run(["dpkg", "-S", $0]).status == 0
            } || LV2Bundle.run(["dpkg", "-S", real.hasPrefix("/usr") ? String(real.dropFirst(4)) : "/usr" + real]).status == 0
            XCTAssertTrue(owned, "\(path) is in no Debian package")
        }
        // A C host dlopens it and finds the descriptor's URI (nothing else needed).
        let dlopen = try LV2Bundle.run(["python3", "-c", """
            from ctypes import CDLL, POINTER, c_char_p
            lib = CDLL('\(so)')
            f = lib.lv2_descriptor
            f.restype = POINTER(c_char_p)
            d = f(0)
            print(d[0].decode())
            print(bool(f(1)))
            """])
        XCTAssertEqual(dlopen.output, "\(LV2Bundle.uri)\nFalse\n")
    }

    /// The bundle a user installs: stripped, without Foundation's ICU data (an empty
    /// package in its place, dist/lv2/icu_data_stub.c: 61 MB → 27 MB), with its licence;
    /// the TTL names the licence, the maintainer and the version lilv shows.
    func testTheBundleIsStrippedCarriesItsLicenceAndNamesItsMaintainer() throws {
        let bundle = try LV2Bundle.build()
        let so = LV2Bundle.sharedObject.path
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: so)[.size] as? Int)
        XCTAssertLessThan(size, 32_000_000, "bendsynth.so: \(size) bytes (ICU's 34 MB of data would be back)")
        let sections = try LV2Bundle.run(["readelf", "-S", "-W", so])
        XCTAssertFalse(sections.output.contains(".symtab"), "stripped")
        let licence = try String(contentsOf: bundle.appendingPathComponent("LICENSE"), encoding: .utf8)
        XCTAssertTrue(licence.contains("GNU GENERAL PUBLIC LICENSE") && licence.contains("Version 3"))
        let info = try LV2Bundle.run(["lv2info", LV2Bundle.uri], environment: ["LV2_PATH": LV2Bundle.path])
        XCTAssertTrue(info.output.contains("Author:            bendsynth maintainers"), info.output)
        let ttl = try String(contentsOf: bundle.appendingPathComponent("bendsynth.ttl"), encoding: .utf8)
        XCTAssertTrue(ttl.contains("doap:license <https://spdx.org/licenses/GPL-3.0-or-later>"), ttl)
        let version = try String(contentsOf: LV2Bundle.packageRoot.appendingPathComponent("VERSION"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(ttl.contains("doap:revision \"\(version)\""), "the TTL's release is VERSION (\(version))")
        let parts = version.split(separator: ".")
        XCTAssertTrue(ttl.contains("lv2:minorVersion \(parts[1]) ;") && ttl.contains("lv2:microVersion \(parts[2]) ;"), "lv2's version is VERSION's")
    }
}
