import BendPeers
import BendSystem

/// `play --listen` / `--bluetooth`: the options' side of BendPeers' `PeerSource` (the
/// address and key file read here, errors as `AppError`, lines to stderr or the pad).
extension PeerSource {
    /// `play --bluetooth`: exit 1 with one line saying why where Bluetooth cannot be
    /// used (no system bus, bluetoothd not running, no adapter, powered off, rfkill).
    /// - Throws: `AppError.runtime`.
    static func requireBluetooth() throws {
        if let why = BluetoothAddress.unavailableReason() { throw AppError.runtime("play: \(why)") }
    }

    /// `play --bluetooth`: registers the bendsynth profile with bluetoothd on RFCOMM
    /// `channel` (empty: the default, 7); who may play and pair is decided by
    /// `admission`. Call `requireBluetooth()` first.
    convenience init(bluetoothChannel channel: String, admission: BluetoothAdmission, prompt: InvitationPrompt?, instrumentName: String? = nil) {
        self.init(bluetoothChannel: channel, admission: admission, prompt: prompt as (any InvitationAsker)?, instrumentName: instrumentName)
        log = { printErr("bendsynth: " + $0) }
        notices = PadNotices()
    }

    /// - Parameters:
    ///   - listen: `[ADDR][:PORT]`; no ADDR → 127.0.0.1; a bare number is a port.
    ///   - keyFile: the shared key for non-loopback addresses; without it the key in
    ///     `$XDG_CONFIG_HOME/bendsynth/key` is used, made (and printed) on first use.
    /// - Throws: `AppError.usage` for a bad address, `.input` for a bad key file.
    convenience init(listen: String, keyFile: String?) throws {
        var spec = listen
        if !spec.isEmpty, spec.allSatisfy(\.isNumber) { spec = ":" + spec }
        let ep: SocketAddress
        do { ep = try PeerAddress.parse(spec) } catch { throw AppError.usage("play: --listen \(error)") }
        var key: SharedKey?
        if let keyFile {
            do { key = try SharedKey.load(path: keyFile) } catch { throw AppError.input("\(error)") }
            warnIfOpenToOthers(keyFile, what: "the shared key")
        } else if !ep.isLoopback {
            let path = SharedKey.defaultPath
            do {
                let (k, created) = try SharedKey.loadOrCreate(path: path)
                if created {
                    printErr("bendsynth: made a shared key in '\(path)'; give it to the players who may connect (remote --key-file):\n\(k.hex)")
                }
                key = k
            } catch { throw AppError.input("\(error)") }
            warnIfOpenToOthers(path, what: "the shared key")
        }
        self.init(listening: ep, key: key)
        log = { printErr("bendsynth: " + $0) }
        notices = PadNotices()
    }
}

extension PadNotices: PeerNotices {}
extension InvitationPrompt: InvitationAsker {}
