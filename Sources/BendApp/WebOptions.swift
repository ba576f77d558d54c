// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import BendInstrument
import BendWeb
import Foundation

/// The `play` options of the web controller (`--web` and friends).
struct WebOptions: Equatable {
    /// `[ADDR][:PORT]`; nil: no web controller.
    var listen: String?
    var certificate: String?
    var key: String?
    var tokenFile: String?
    var https = false

    static let specs: [OptionSpec] = [
        OptionSpec("web", value: "[ADDR][:PORT]", help: "serve the pad to a phone's browser (an input source; bare --web: loopback, port 47880, over http; no ADDR: loopback only; the next word is its value only when it is an address or port; see docs/PHONE.md)"),
        OptionSpec("web-cert", value: "FILE", help: "TLS certificate (PEM) for --web (default: made on first use in $XDG_CONFIG_HOME/bendsynth/)"),
        OptionSpec("web-key", value: "FILE", help: "its private key (PEM), with --web-cert"),
        OptionSpec("web-token-file", value: "FILE", help: "pairing token for --web, kept across starts (made there if missing; a file of your own holds 16–64 characters of A-Z a-z 0-9 - _; default: a new one each start)"),
        OptionSpec("web-https", help: "serve --web over HTTPS on loopback too"),
    ]

    /// Applies one parsed option; returns false when it is not a web option.
    mutating func apply(_ name: String, _ value: String?) -> Bool {
        switch name {
        case "web": listen = value ?? ""
        case "web-cert": certificate = value
        case "web-key": key = value
        case "web-token-file": tokenFile = value
        case "web-https": https = true
        default: return false
        }
        return true
    }

    /// The web pad's settings, if `--web` asked for it. - Throws: `AppError.usage` for a bad address or
    /// web options without `--web`, a certificate without its key; `AppError.input` for a
    /// bad `--web-token-file`; `AppError.runtime` when the page's files are not found.
    func settings() throws -> WebSource.Settings? {
        guard let listen else {
            if self != WebOptions() { throw AppError.usage("play: --web-cert, --web-key, --web-token-file and --web-https need --web [ADDR][:PORT]") }
            return nil
        }
        guard (certificate == nil) == (key == nil) else {
            throw AppError.usage("play: --web-cert and --web-key go together (a PEM certificate and its key)")
        }
        let address: WebListenAddress
        do { address = try WebListenAddress(listen) } catch {
            throw AppError.usage("play: --web \(error)")
        }
        guard let assets = Installation.webAssets else {
            throw AppError.runtime("play --web: the web page's files (index.html, pad.js, pad.css) are not found (looked in: \(assetCandidates("web").joined(separator: ", "))); set BENDSYNTH_ASSETS to the folder holding web/")
        }
        var settings = WebSource.Settings(address: address, assets: assets)
        settings.certificate = certificate
        settings.key = key
        settings.tokenFile = tokenFile
        // A bad token file is bad input: said now, with the other options, before the
        // audio device opens.
        do { settings.token = try tokenFile.map { try WebToken.load(path: $0) } } catch { throw AppError.input("\(error)") }
        for (path, what) in [(tokenFile, "the pairing token file"), (key, "the web certificate's private key")] {
            if let path, let why = InputFile.openToOthers(path) { warn("\(what) '\(path)' \(why)") }
        }
        settings.showsQRCode = isatty(STDERR_FILENO) == 1
        settings.https = https
        return settings
    }

    /// Where the address goes again, besides standard error: standard output when the
    /// terminal pad is not drawn there (`toStandardOutput`), unless standard output and
    /// error are both the terminal (it would show twice); nil: nowhere.
    func addressOnStandardOutput(_ toStandardOutput: Bool) -> (@Sendable (String) -> Void)? {
        guard toStandardOutput, !(isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1) else { return nil }
        return { printLineOut($0) }
    }
}
