import BendControl
import BendWeb
import Foundation
import Glibc

/// The `play` options of the web controller (`--web` and friends).
struct WebOptions: Equatable {
    /// `[ADDR][:PORT]`; nil: no web controller.
    var listen: String?
    var certificate: String?
    var key: String?
    var tokenFile: String?
    var https = false

    static let specs: [OptionSpec] = [
        OptionSpec("web", value: "[ADDR][:PORT]", help: "serve the pad to a phone's browser (an input source; port 47880; no ADDR: loopback only, over http; see docs/WEB.md)"),
        OptionSpec("web-cert", value: "FILE", help: "TLS certificate (PEM) for --web (default: made on first use in $XDG_CONFIG_HOME/bendsynth/)"),
        OptionSpec("web-key", value: "FILE", help: "its private key (PEM), with --web-cert"),
        OptionSpec("web-token-file", value: "FILE", help: "pairing token for --web, kept across starts (made there if missing; default: a new one each start)"),
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

    /// The web source asked for, if any. - Throws: `AppError.usage` for a bad address or
    /// web options without `--web`, a certificate without its key.
    func source(pitchMap: PitchMap) throws -> WebSource? {
        guard let listen else {
            if self != WebOptions() { throw AppError.usage("play: --web-cert, --web-key, --web-token-file and --web-https need --web [ADDR][:PORT]") }
            return nil
        }
        guard (certificate == nil) == (key == nil) else {
            throw AppError.usage("play: --web-cert and --web-key go together (a PEM certificate and its key)")
        }
        do {
            return WebSource(address: try WebListenAddress(listen), options: self)
        } catch {
            throw AppError.usage("play: --web \(error)")
        }
    }
}

/// Phones' browsers (`play --web`): libwebsockets serves the page and its WebSocket; every
/// connection's touches reach the port through `WebSessions`.
final class WebSource: PlaySource, @unchecked Sendable {
    let name: String
    let endsPlay = false
    let address: WebListenAddress
    let options: WebOptions
    /// True when the terminal pad follows: it covers the screen (the alternate screen),
    /// so start waits for Enter while the player scans the code.
    var waitsForEnter = false
    private var server: WebServer?

    init(address: WebListenAddress, options: WebOptions) {
        self.address = address
        self.options = options
        name = "web \(address.host):\(address.port)"
    }

    /// HTTPS off loopback (phones give motion sensors only to secure pages), on loopback
    /// when asked for or when a certificate is given.
    var secure: Bool { !address.isLoopback || options.https || options.certificate != nil }

    func start(port: ControlPort, context: PlayContext, finished: @escaping @Sendable () -> Void) throws {
        let token: WebToken
        do { token = try options.tokenFile.map { try WebToken.load(path: $0) } ?? WebToken.random() } catch {
            throw AppError.input("\(error)")
        }
        var certificate: WebCertificate?
        if secure {
            do {
                if let cert = options.certificate, let key = options.key {
                    certificate = try WebCertificate.load(certificate: cert, key: key)
                } else {
                    certificate = try WebCertificate.loadOrMake(in: WebSource.configDirectory())
                }
            } catch {
                throw options.certificate != nil ? AppError.input("--web-cert: \(error)") : AppError.runtime("web certificate: \(error)")
            }
        }
        let candidates = assetCandidates("web")
        guard let folder = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0 + "/index.html") }) else {
            throw AppError.runtime("the web page (Assets/web) is not found (looked in: \(candidates.joined(separator: ", "))); set BENDSYNTH_ASSETS")
        }
        let assets: WebAssets
        do { assets = try WebAssets(directory: folder) } catch { throw AppError.runtime("\(error)") }
        let mixer = context.mixer, output = context.output
        let sessions = WebSessions(token: token, pitchMap: context.pitchMap, emit: { port.send($0) },
                                   status: { (output.xruns, mixer.activeVoices) })
        do {
            server = try WebServer(address: address, certificate: certificate, assets: assets, sessions: sessions,
                                   log: { printErr("bendsynth: \($0)") })
        } catch {
            throw AppError.runtime("\(error)")
        }
        guard let server else { return }
        printErr("bendsynth: web pad on \(address.host):\(server.boundPort); open this address on the phone (or scan the code):")
        printErr(server.url)
        if let lines = QRCodeText.render(server.url) { printErr(lines.joined(separator: "\n")) }
        if let certificate {
            printErr("bendsynth: the browser warns once about the self-signed certificate; its SHA-256 fingerprint is \(certificate.fingerprint)")
        }
        if waitsForEnter {
            printErr("bendsynth: scan the code, then press Enter for the pad (the phone can connect at any time)")
            _ = readLine()
        }
    }

    func stop() {
        server?.stop()
        server = nil
    }

    /// `$XDG_CONFIG_HOME/bendsynth` (else `~/.config/bendsynth`).
    static func configDirectory() -> String {
        let env = ProcessInfo.processInfo.environment
        let config = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((env["HOME"] ?? "/") + "/.config")
        return config + "/bendsynth"
    }
}
