// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation

/// `make deb`: dpkg-deb lists the expected control fields and files, the packaged binary
/// runs from the unpacked tree, and lintian reports no error.
final class DebianPackageTests: XCTestCase {
    func testDebHasItsFilesDependsAndNoLintianError() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let deb = dir.appendingPathComponent("bendsynth.deb").path
        // The LV2 bundle, built in the checkout's .build (`make lv2`: the static release
        // build of the plugin; incremental, and `make test` made it already).
        XCTAssertEqual(try BinaryRunner.spawn(["make", "-s", "-C", BinaryRunner.packageRoot.path, "lv2"]).status, 0, "make lv2")
        let lv2Bundle = BinaryRunner.packageRoot.appendingPathComponent(".build/lv2/bendsynth.lv2")
        // The static release build takes minutes: the test packages the binary under test
        // (DEB_BIN). A debug build links the Swift runtime from the toolchain, whose RUNPATH
        // lintian flags (custom-library-search-path): that tag alone is allowed for it.
        let make = try BinaryRunner.spawn(["make", "-s", "-C", BinaryRunner.packageRoot.path, "deb",
                                           "DEB_BIN=\(BinaryRunner.executable.path)", "DEB_FILE=\(deb)",
                                           "DEB_ROOT=\(dir.path)/root", "BUILD_DIR=\(dir.path)/build", "LV2_BUNDLE=\(lv2Bundle.path)"])
        XCTAssertEqual(make.status, 0, make.output)
        let info = try BinaryRunner.spawn(["dpkg-deb", "--info", deb]).output
        for field in ["Package: bendsynth", "Architecture: amd64", "Section: sound", "Maintainer: ", "Installed-Size: ", "Description: "] {
            XCTAssertTrue(info.contains(field), "\(field): \(info)")
        }
        let depends = try BinaryRunner.spawn(["dpkg-deb", "-f", deb, "Depends"]).output
        for package in ["libasound2", "libsndfile1", "libsamplerate0", "libevdev2", "liblo7", "libsodium23", "libbluetooth3", "libjack-jackd2-0", "libsystemd0", "libc6",
                        "libfftw3-double3"] {
            XCTAssertTrue(depends.contains(package), "Depends lacks \(package): \(depends)")
        }
        XCTAssertFalse(depends.contains("swift"), depends)
        let contents = try BinaryRunner.spawn(["dpkg-deb", "--contents", deb]).output
        for path in ["./usr/bin/bendsynth", "./usr/share/bendsynth/synth_tone_mono.caf", "./usr/share/bendsynth/demo.jsonl",
                     "./usr/share/man/man1/bendsynth.1.gz", "./usr/share/bash-completion/completions/bendsynth",
                     "./usr/share/zsh/vendor-completions/_bendsynth", "./usr/lib/systemd/user/bendsynth.service",
                     "./usr/share/doc/bendsynth/copyright", "./usr/share/doc/bendsynth/changelog.gz",
                     "./usr/lib/lv2/bendsynth.lv2/bendsynth.so", "./usr/lib/lv2/bendsynth.lv2/manifest.ttl",
                     "./usr/lib/lv2/bendsynth.lv2/bendsynth.ttl", "./usr/lib/lv2/bendsynth.lv2/synth_tone_mono.caf",
                     "./usr/lib/lv2/bendsynth.lv2/web/pad.js"] {
            XCTAssertTrue(contents.contains(" \(path)\n"), path)
        }
        XCTAssertFalse(contents.contains("/usr/local"), contents)
        XCTAssertTrue(contents.split(separator: "\n").allSatisfy { $0.contains(" root/root ") }, contents)
        // Unpacked, the (stripped) binary runs and takes its assets from /usr/share/bendsynth
        // under the unpacked root.
        let unpacked = dir.appendingPathComponent("x")
        XCTAssertEqual(try BinaryRunner.spawn(["dpkg-deb", "-x", deb, unpacked.path]).status, 0)
        let version = try BinaryRunner.spawn([unpacked.appendingPathComponent("usr/bin/bendsynth").path, "--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.output.hasPrefix("bendsynth 0."), version.output)

        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/lintian") else { throw XCTSkip("lintian is not installed") }
        let lintian = try BinaryRunner.spawn(["sh", "-c", "lintian --no-tag-display-limit '\(deb)' 2>/dev/null"])
        var errors = lintian.output.split(separator: "\n").filter { $0.hasPrefix("E: ") }
        if BinaryRunner.executable.path.contains("/debug/") {
            errors.removeAll { $0.contains("custom-library-search-path RUNPATH /") && $0.contains("swift") }
        }
        XCTAssertEqual(errors, [], lintian.output)
    }
}
