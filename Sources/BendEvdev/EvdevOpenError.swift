// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// An input device that cannot be used: which node, which call, why, and what to do.
public struct EvdevOpenError: Error, CustomStringConvertible, Sendable, Equatable {
    public var path: String
    /// The failing call, e.g. "open", "libevdev_new_from_fd", "EVIOCGRAB".
    public var call: String
    /// errno value.
    public var code: Int32

    public init(path: String, call: String, code: Int32) {
        self.path = path
        self.call = call
        self.code = code
    }

    public var description: String {
        var s = "cannot use input device '\(path)': \(call): \(String(cString: strerror(code)))"
        switch code {
        case EACCES, EPERM:
            s += call == "EVIOCGRAB" ? "" : "; add the user to the 'input' group (sudo usermod -aG input $USER, then log in again) or run with access to the node"
        case EBUSY where call == "EVIOCGRAB":
            s += "; another program has grabbed it (drop --grab to share it)"
        case ENOENT:
            s += "; see 'bendsynth devices' for the input devices present"
        case ENOTTY, EINVAL:
            s += "; not an evdev input node (expected /dev/input/eventN)"
        default: break
        }
        return s
    }
}
