// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEvdev
import BendPeers
import BendSystem

/// What `remote` is assembled from: where the instrument is, how this side shows itself
/// and what plays it (the pad, a script, input devices), and, with `monitor`, the local
/// instrument that sounds here too.
public struct RemoteSettings: @unchecked Sendable {
    /// Where to connect (transport syntax: TCP `HOST:PORT`, Bluetooth `XX:…:XX[@CH]`).
    public var target: String
    /// The instrument's shared key (it must prove it too).
    public var key: SharedKey?
    /// The name the instrument shows (nil: user@host).
    public var name: String?
    /// Connect and handshake timeout, seconds; reconnect for this long after a drop.
    public var timeout = 3.0
    public var retryFor = 60.0
    /// A text message sent once connected.
    public var text: String?
    /// Play this script to the instrument instead of the pad, then leave.
    public var script: TouchScript?
    /// Input devices that play the instrument too (beside the pad or the script).
    public var devices: (paths: [String], mapping: EvdevMapping, grab: Bool) = ([], EvdevMapping(), false)
    /// The pad's layout and guides (the instrument plays the raw positions with its own).
    public var pitchMap = PitchMap.linear
    public var tuning: Tuning?
    /// `--monitor`: the local instrument (its sources are the pad or the script and the
    /// devices); nil: no local sound.
    public var monitor: LiveSettings?

    public init(target: String) { self.target = target }
}

extension RemoteSettings {
    /// Reads what the settings name in files, before anything connects: the Bluetooth
    /// adapter checked usable for a Bluetooth target, the script (`scriptPath`), the
    /// shared key (`keyFile`; `warn` is told when others can read it).
    /// - Throws: `InstrumentError(.runtime)` when Bluetooth cannot be used; `(.input)`
    ///   naming the file for a script or key that does not read.
    public mutating func load(scriptPath: String?, keyFile: String?, warn: (String) -> Void) throws {
        if case .bluetooth = RemoteTarget.classify(target), let why = BluetoothAddress.unavailableReason() {
            throw InstrumentError(.runtime, "remote: \(why)")
        }
        do { script = try scriptPath.map { try TouchScript.load(path: $0) } } catch { throw InstrumentError(.input, "\(error)") }
        do { key = try keyFile.map { try SharedKey.load(path: $0) } } catch { throw InstrumentError(.input, "\(error)") }
        if let keyFile, let why = InputFile.openToOthers(keyFile) { warn("the shared key '\(keyFile)' \(why)") }
    }

    /// `target` in transport syntax: a name (as `bendsynth peers` lists it) resolved to
    /// the address of the one instrument announcing it within `timeout` (`say` is told
    /// "'NAME' is HOST:PORT").
    /// - Throws: as `RemoteTarget.resolved`.
    public mutating func resolveTarget(say: (String) -> Void) throws {
        let classified = RemoteTarget.classify(target)
        if case .name = classified, case .tcp(let address) = try classified.resolved(seconds: timeout) {
            say("'\(target)' is \(address)")
            target = address
        } else if case .tcp(let address) = classified {
            target = address
        }
    }
}
