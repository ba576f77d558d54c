// SPDX-License-Identifier: GPL-3.0-or-later
import CALSA

/// A failed alsa-lib call: the call's name, its (negative errno) result with
/// `snd_strerror`'s text, and the PCM or card it was about.
public struct ALSAError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The failing call, e.g. "snd_pcm_open" or "snd_pcm_hw_params_set_channels(2)".
    public var call: String
    /// The call's result: a negative errno (e.g. −2 = −ENOENT) or an ALSA error code.
    public var code: Int32
    /// The PCM or control name, e.g. "default" or "hw:0"; empty when not about a device.
    public var device: String
    /// What was expected, when the C text alone does not say it.
    public var detail: String?

    public init(call: String, code: Int32, device: String = "", detail: String? = nil) {
        self.call = call
        self.code = code
        self.device = device
        self.detail = detail
    }

    /// `snd_strerror`'s text for `code`.
    public var text: String { String(cString: snd_strerror(code)) }

    /// e.g. `ALSA 'nonexistent_pcm_xyz': snd_pcm_open: No such file or directory`.
    public var description: String {
        let place = device.isEmpty ? "ALSA" : "ALSA '\(device)'"
        let tail = detail.map { " (\($0))" } ?? ""
        return "\(place): \(call): \(text)\(tail)"
    }
}

/// Throws `ALSAError` when an alsa-lib call returned a negative code; returns it otherwise.
@discardableResult
func alsaCheck(_ result: Int32, _ call: @autoclosure () -> String, device: String) throws -> Int32 {
    if result < 0 { throw ALSAError(call: call(), code: result, device: device) }
    return result
}
