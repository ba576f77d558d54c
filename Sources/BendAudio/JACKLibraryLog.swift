// SPDX-License-Identifier: GPL-3.0-or-later
import CJack

/// libjack's own error and info lines ("Cannot connect to server socket err = No such
/// file or directory", "JackShmReadWritePtr::~JackShmReadWritePtr - Init not done…"),
/// which it writes to stderr by default, are silenced: bendsynth says what failed in one
/// line of its own (`JACKError`: the call, the client, the server, the status bits and
/// what to do).
enum JACKLibraryLog {
    /// Installs the silent handlers, once, before the first client opens. - Thread: setup.
    static func silence() { _ = installed }

    private static let installed: Void = {
        jack_set_error_function { _ in }
        jack_set_info_function { _ in }
    }()
}
