// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Foundation

/// The file the web pad's pairing address (with its token) is written to, one per
/// instance, mode 0600 (`PrivateFile`): `web-pad-url.txt` in the instance's own folder of
/// the host's (state:makePath), else `web-pad-url-PORT.txt` in the user's state folder
/// ($XDG_STATE_HOME/bendsynth, ~/.local/state/bendsynth) — the port is the instance's
/// own while it serves, so two instances never share a file, and it is removed at cleanup.
///
/// The host is asked for the path at the pad's first start, on the worker: state.h allows
/// makePath from instantiate's feature "in any non-realtime context", but Ardour 7's
/// handler reads the plugin's name, which is set only once instantiate has returned, and
/// aborts (`basic_string: construction from null`) when it is called from instantiate.
/// - Thread: the host's worker (one call at a time), and cleanup.
final class PadAddressFile {
    static let name = "web-pad-url.txt"
    private let host: LV2Host
    private let log: LV2Log
    /// The file written last, and whether it is ours to remove (the user's state folder).
    private var written: (path: String, own: Bool)?
    /// The host's folder for the instance, asked once (nil: the host has no makePath).
    private var hostPath: String??

    init(host: LV2Host, log: LV2Log) {
        self.host = host
        self.log = log
    }

    /// Writes `url` (served on `port`) to the instance's file; a failure is logged.
    func write(_ url: String, port: UInt16) {
        if hostPath == nil { hostPath = .some(host.path(for: PadAddressFile.name)) }
        let target: (path: String, own: Bool)
        if let path = hostPath ?? nil {
            target = (path, false)
        } else {
            let folder = PadAddressFile.stateFolder
            // Each missing folder of the path, made 0700 (mkdir: an error that names it).
            var made = ""
            for part in folder.split(separator: "/") {
                made += "/" + part
                if mkdir(made, 0o700) != 0 && errno != EEXIST {
                    log.warning("web pad: cannot make '\(made)' for the pairing address (\(String(cString: strerror(errno)))); it is in the log only")
                    return
                }
            }
            target = (folder + "/web-pad-url-\(port).txt", true)
        }
        if let old = written, old.own, old.path != target.path { unlink(old.path) }
        do {
            try PrivateFile.write(url + "\n", to: target.path)
            written = target
        } catch {
            log.warning("web pad: cannot write the pairing address to '\(target.path)' (\(error)); it is in the log only")
        }
    }

    /// Removes the file when it is in the user's state folder.
    func remove() {
        if let old = written, old.own { unlink(old.path) }
        written = nil
    }

    /// $XDG_STATE_HOME/bendsynth (~/.local/state/bendsynth).
    static var stateFolder: String { ConfigFile.stateFolder(program: "bendsynth") }
}
