// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CSSL
import Foundation
import Glibc

/// The web controller's TLS certificate and key (PEM files) and the certificate's
/// SHA-256 fingerprint, printed so the player can check the browser's warning page.
///
/// Made at first use (`make(in:)`): an ECDSA P-256 key and a self-signed certificate for
/// 10 years, `CN=bendsynth`, written with mode 0600 through a temporary file and a
/// rename, so a half-written file is never left.
public struct WebCertificate: Sendable, Equatable {
    public let certificatePath: String
    public let keyPath: String
    /// SHA-256 of the certificate (DER), as `AB:CD:…` (what browsers show).
    public let fingerprint: String

    public static let certificateName = "web-cert.pem"
    public static let keyName = "web-key.pem"
    /// Where the certificate and key are made at first use: `$XDG_CONFIG_HOME/bendsynth`.
    public static var defaultFolder: String { ConfigFile.userFolder(program: "bendsynth") }

    /// The certificate and key in `directory` (`$XDG_CONFIG_HOME/bendsynth`), made there
    /// first when they do not exist.
    /// - Throws: `WebCertificateError` naming the file and the OpenSSL or system error.
    public static func loadOrMake(in directory: String) throws(WebCertificateError) -> WebCertificate {
        let cert = directory + "/" + certificateName, key = directory + "/" + keyName
        if access(cert, F_OK) == 0 || access(key, F_OK) == 0 {
            return try load(certificate: cert, key: key, named: Names.defaults)
        }
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) } catch {
            throw WebCertificateError("cannot create '\(directory)': \(error.localizedDescription)")
        }
        try make(certificate: cert, key: key)
        return try load(certificate: cert, key: key, named: Names.defaults)
    }

    /// How messages name the two files: the options given, or the default files.
    public struct Names: Sendable {
        public var certificate: String
        public var key: String
        public static let options = Names(certificate: "--web-cert", key: "--web-key")
        public static let defaults = Names(certificate: "the default web certificate", key: "the default web key")
    }

    /// Checks that `certificate` and `key` are PEM files that belong together.
    public static func load(certificate: String, key: String, named: Names = .options) throws(WebCertificateError) -> WebCertificate {
        guard let x509 = readCertificate(certificate) else {
            throw WebCertificateError("\(named.certificate) '\(certificate)': not a PEM certificate (\(opensslError()))")
        }
        defer { X509_free(x509) }
        guard let bio = BIO_new_file(key, "r") else { throw WebCertificateError("\(named.key) '\(key)': cannot be read (\(opensslError()))") }
        defer { BIO_free(bio) }
        guard let pkey = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
            throw WebCertificateError("\(named.key) '\(key)': not a PEM private key (\(opensslError()))")
        }
        defer { EVP_PKEY_free(pkey) }
        guard X509_check_private_key(x509, pkey) == 1 else {
            throw WebCertificateError("\(named.key) '\(key)' is not the key of \(named.certificate) '\(certificate)'")
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(x509, EVP_sha256(), &digest, &length) == 1 else {
            throw WebCertificateError("'\(certificate)': cannot compute its SHA-256 (\(opensslError()))")
        }
        let fingerprint = digest.prefix(Int(length)).map { String(format: "%02X", $0) }.joined(separator: ":")
        return WebCertificate(certificatePath: certificate, keyPath: key, fingerprint: fingerprint)
    }

    static func readCertificate(_ path: String) -> OpaquePointer? {
        guard let bio = BIO_new_file(path, "r") else { return nil }
        defer { BIO_free(bio) }
        return PEM_read_bio_X509(bio, nil, nil, nil)
    }

    /// Makes a P-256 key and a self-signed certificate and writes them (mode 0600).
    static func make(certificate: String, key: String) throws(WebCertificateError) {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw WebCertificateError("EVP_PKEY_CTX_new_from_name: \(opensslError())") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1, EVP_PKEY_generate(ctx, &pkey) == 1, let pkey else {
            throw WebCertificateError("cannot make a P-256 key: \(opensslError())")
        }
        defer { EVP_PKEY_free(pkey) }
        guard let x509 = X509_new() else { throw WebCertificateError("X509_new: \(opensslError())") }
        defer { X509_free(x509) }
        var serial = [UInt8](repeating: 0, count: 8)
        _ = RAND_bytes(&serial, Int32(serial.count))
        let serialNumber = serial.reduce(0) { $0 << 8 | Int($1) } & 0x7fff_ffff_ffff_ffff
        let name = X509_get_subject_name(x509)
        guard X509_set_version(x509, 2) == 1, ASN1_INTEGER_set(X509_get_serialNumber(x509), serialNumber) == 1,
              X509_gmtime_adj(X509_getm_notBefore(x509), -3600) != nil,
              X509_gmtime_adj(X509_getm_notAfter(x509), 10 * 365 * 86400) != nil,
              X509_set_pubkey(x509, pkey) == 1,
              X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, "bendsynth", -1, -1, 0) == 1,
              X509_set_issuer_name(x509, name) == 1,
              X509_sign(x509, pkey, EVP_sha256()) > 0 else {
            throw WebCertificateError("cannot make the certificate: \(opensslError())")
        }
        try write(key) { PEM_write_PrivateKey($0, pkey, nil, nil, 0, nil, nil) == 1 }
        do { try write(certificate) { PEM_write_X509($0, x509) == 1 } } catch {
            unlink(key)
            throw error
        }
    }

    /// Writes `path` through `path.tmp` (mode 0600) and a rename.
    static func write(_ path: String, _ body: (UnsafeMutablePointer<FILE>) -> Bool) throws(WebCertificateError) {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0, let file = fdopen(fd, "w") else {
            throw WebCertificateError("cannot create '\(temporary)': \(String(cString: strerror(errno)))")
        }
        let written = body(file)
        let closed = fclose(file) == 0
        guard written, closed, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw WebCertificateError("cannot write '\(path)': \(written ? String(cString: strerror(errno)) : opensslError())")
        }
    }

    /// The oldest error on OpenSSL's queue, as text; the queue is cleared.
    static func opensslError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "no OpenSSL error" }
        var buf = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buf, buf.count)
        return cText(buf)
    }
}

public struct WebCertificateError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
