// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
@testable import BendWeb
import XCTest

/// Certificate, token file, listen address, assets and the QR code.
final class WebSetupTests: XCTestCase {
    private func directory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bendsynth-webtests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    private func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    func testTheCertificateIsMadeOnceWithMode0600AndItsFingerprint() throws {
        let dir = try directory() + "/bendsynth"
        let made = try WebCertificate.loadOrMake(in: dir)
        XCTAssertEqual(try mode(made.certificatePath), 0o600)
        XCTAssertEqual(try mode(made.keyPath), 0o600)
        XCTAssertEqual(made.fingerprint.split(separator: ":").count, 32)
        XCTAssertFalse(FileManager.default.fileExists(atPath: made.keyPath + ".tmp"))
        let again = try WebCertificate.loadOrMake(in: dir)
        XCTAssertEqual(again, made, "the second start uses the same certificate")
        // A key that is not the certificate's is refused, naming the files.
        let other = try WebCertificate.loadOrMake(in: try directory())
        XCTAssertThrowsError(try WebCertificate.load(certificate: made.certificatePath, key: other.keyPath)) {
            XCTAssertEqual("\($0)", "--web-key '\(other.keyPath)' is not the key of --web-cert '\(made.certificatePath)'")
        }
        XCTAssertThrowsError(try WebCertificate.load(certificate: made.keyPath, key: made.keyPath)) {
            XCTAssertTrue("\($0)".hasPrefix("--web-cert '\(made.keyPath)': not a PEM certificate"), "\($0)")
        }
        // A good certificate with a file that is no key: the message names --web-key.
        XCTAssertThrowsError(try WebCertificate.load(certificate: made.certificatePath, key: made.certificatePath)) {
            XCTAssertTrue("\($0)".hasPrefix("--web-key '\(made.certificatePath)': not a PEM private key"), "\($0)")
        }
    }

    func testTheTokenFileIsMadeOnceAndRead() throws {
        let path = try directory() + "/token"
        let made = try WebToken.load(path: path)
        XCTAssertEqual(try mode(path), 0o600)
        XCTAssertEqual(try WebToken.load(path: path), made)
        try "not a token!\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try WebToken.load(path: path)) {
            XCTAssertEqual("\($0)", "token file '\(path)', line 1: expected 16…64 characters of A-Z a-z 0-9 - _")
        }
    }

    func testListenAddresses() throws {
        XCTAssertEqual(try WebListenAddress(""), WebListenAddress(host: "127.0.0.1", port: 47880))
        XCTAssertEqual(try WebListenAddress(":9000"), WebListenAddress(host: "127.0.0.1", port: 9000))
        XCTAssertEqual(try WebListenAddress("0.0.0.0"), WebListenAddress(host: "0.0.0.0", port: 47880))
        XCTAssertEqual(try WebListenAddress("192.168.1.5:0"), WebListenAddress(host: "192.168.1.5", port: 0))
        XCTAssertTrue(try WebListenAddress("").isLoopback)
        XCTAssertFalse(try WebListenAddress("0.0.0.0").isLoopback)
        XCTAssertThrowsError(try WebListenAddress("host.example:80")) { XCTAssertEqual("\($0)", "'host.example:80': 'host.example' is not a numeric IPv4 address") }
        XCTAssertThrowsError(try WebListenAddress(":99999")) { XCTAssertEqual("\($0)", "':99999': port '99999' is not a number in 0…65535") }
        XCTAssertThrowsError(try WebListenAddress("[::1]:80"))
    }

    func testOnlyThePagesFilesAreServed() throws {
        let dir = try directory()
        for name in WebAssets.files.keys { try "file \(name)".write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
        try "secret".write(toFile: dir + "/other.txt", atomically: true, encoding: .utf8)
        let assets = try WebAssets(directory: dir)
        XCTAssertEqual(assets.file(at: "/")?.body, Array("file index.html".utf8))
        XCTAssertEqual(assets.file(at: "/pad.js")?.contentType, "text/javascript; charset=utf-8")
        for path in ["/other.txt", "/../other.txt", "/./pad.js", "pad.js", "/index.html/", "//pad.js", "/PAD.JS"] {
            XCTAssertNil(assets.file(at: path), path)
        }
        try FileManager.default.removeItem(atPath: dir + "/pad.css")
        XCTAssertThrowsError(try WebAssets(directory: dir)) { XCTAssertEqual("\($0)", "the web page's file '\(dir)/pad.css' cannot be read") }
    }

    func testTheQRCodeHasTheSizeOfItsVersionAndAQuietZone() throws {
        let url = "https://192.168.100.200:47880/#0123456789abcdef0123456789abcdef"
        let modules = try XCTUnwrap(QRCodeText.modules(url))
        XCTAssertEqual((modules.count - 17) % 4, 0, "a QR code is 17 + 4·version modules wide")
        XCTAssertTrue(modules.allSatisfy { $0.count == modules.count })
        // The three finder patterns: a dark 7×7 ring at three corners.
        for (r, c) in [(0, 0), (0, modules.count - 7), (modules.count - 7, 0)] {
            XCTAssertTrue((0..<7).allSatisfy { modules[r][c + $0] && modules[r + 6][c + $0] && modules[r + $0][c] && modules[r + $0][c + 6] })
            XCTAssertFalse(modules[r + 1][c + 1])
        }
        let lines = try XCTUnwrap(QRCodeText.render(url))
        XCTAssertEqual(lines.count, (modules.count + 8 + 1) / 2, "two modules a line, 4 of quiet zone each side")
    }
}
