// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import Foundation

/// Phones' browsers (`play --web`) as an input source: libwebsockets serves the page and
/// its WebSocket; every connection's touches reach the port through `WebSessions`.
public final class WebSource: InputSource, @unchecked Sendable {
    /// What `play --web` asked for.
    public struct Settings: Sendable {
        public var address: WebListenAddress
        /// The folder of the page's files (`Assets/web`).
        public var assets: String
        /// Where the certificate is made at first use (`$XDG_CONFIG_HOME/bendsynth`).
        public var configDirectory: String
        /// `--web-cert` and `--web-key`: PEM files given.
        public var certificate: String?
        public var key: String?
        /// `--web-token-file`.
        public var tokenFile: String?
        /// The token already read from `tokenFile` (the app checks it with the other
        /// options, before the audio device opens); nil: read at start.
        public var token: WebToken?
        /// Draw the QR code under the address (terminal colours): only when the lines go
        /// to a terminal, not to a file, a pipe or the journal.
        public var showsQRCode = true
        /// `--web-https`: HTTPS on loopback too.
        public var https = false

        public init(address: WebListenAddress, assets: String, configDirectory: String = WebCertificate.defaultFolder) {
            self.address = address
            self.assets = assets
            self.configDirectory = configDirectory
        }
    }

    public let name: String
    public let endsPlay = false
    /// Its address (and the QR code) go to the terminal at start.
    public var printsForThePlayer: Bool { true }
    public let settings: Settings
    /// Notes for the player (where it listens, the fingerprint, server errors).
    private let log: @Sendable (String) -> Void
    /// Lines the source made itself, to be shown as they are (not escaped): the address
    /// (on a line of its own) and the QR code's rows with their colour escapes.
    private let show: @Sendable (String) -> Void
    /// The address once more, for a script to read (standard output, when the pad is not
    /// drawn there); nil: not.
    private let address: (@Sendable (String) -> Void)?
    private var server: WebServer?

    public init(_ settings: Settings, log: @escaping @Sendable (String) -> Void, show: @escaping @Sendable (String) -> Void,
                address: (@Sendable (String) -> Void)? = nil) {
        self.settings = settings
        self.log = log
        self.show = show
        self.address = address
        name = "web \(settings.address.host):\(settings.address.port)"
    }

    /// HTTPS off loopback (phones give motion sensors only to secure pages), on loopback
    /// when asked for or when a certificate is given.
    public var secure: Bool { !settings.address.isLoopback || settings.https || settings.certificate != nil }

    /// - Throws: `InputSourceError`: input (exit 2) for a bad token file or given
    ///   certificate; runtime (exit 1) for a port in use, a certificate that cannot be
    ///   made, the page's files missing.
    public func start(port: ControlPort, context: InputContext, finished: @escaping @Sendable () -> Void) throws {
        let token: WebToken
        do { token = try settings.token ?? settings.tokenFile.map { try WebToken.load(path: $0) } ?? WebToken.random() } catch {
            throw InputSourceError(.input, "\(error)")
        }
        var certificate: WebCertificate?
        if secure {
            do {
                if let cert = settings.certificate, let key = settings.key {
                    certificate = try WebCertificate.load(certificate: cert, key: key)
                } else {
                    certificate = try WebCertificate.loadOrMake(in: settings.configDirectory)
                }
            } catch {
                throw settings.certificate != nil ? InputSourceError(.input, "\(error)") : InputSourceError(.runtime, "web certificate: \(error)")
            }
        }
        let assets: WebAssets
        do { assets = try WebAssets(directory: settings.assets) } catch { throw InputSourceError(.runtime, "\(error)") }
        let meters = context.meters, output = context.output, board = context.touchBoard, source = port.source
        let sessions = WebSessions(token: token, pitchMap: context.pitchMap,
                                   guides: context.tuning?.guides(pitchMap: context.pitchMap) ?? [], toneNote: context.toneNote,
                                   timbre: port.takesTimbre, emit: { port.send($0) }, status: { (output.xruns ?? 0, meters.voices) },
                                   sounding: { board?.touches(of: source).mapValues(\.x) ?? [:] }, log: log,
                                   panic: { context.panic?($0) })
        do {
            server = try WebServer(address: settings.address, certificate: certificate, assets: assets, sessions: sessions,
                                   log: log)
        } catch {
            throw InputSourceError(.runtime, "play: \(error)")
        }
        guard let server else { return }
        let lines = settings.showsQRCode ? QRCodeText.render(server.url) : nil
        if settings.address.isLoopback {
            // A phone cannot reach loopback: say so rather than send the player to it.
            log("web pad on \(settings.address.host):\(server.boundPort), loopback: a browser on this machine only (for a phone, --web with this machine's address, e.g. --web 0.0.0.0); open this address\(lines == nil ? "" : " (or scan the code)"):")
        } else {
            log("web pad on \(settings.address.host):\(server.boundPort); open this address on the phone\(lines == nil ? "" : " (or scan the code)"):")
        }
        show(server.url)
        lines?.forEach(show)
        address?(server.url)
        if let certificate {
            log("the browser warns once about the self-signed certificate; its SHA-256 fingerprint is \(certificate.fingerprint)")
        }
    }

    /// The port the pad is served on (its address's, or the one the system chose for 0);
    /// nil when it is not served.
    public var boundPort: UInt16? { server?.boundPort }

    /// The pad's address with its pairing token (what a phone opens); nil when not served.
    public var url: String? { server?.url }

    /// Stops serving: every connection closes and its touches end.
    public func stop() {
        server?.stop()
        server = nil
    }
}
