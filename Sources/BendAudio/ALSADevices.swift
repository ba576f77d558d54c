// SPDX-License-Identifier: GPL-3.0-or-later
import CALSA
import Glibc

/// One playback device of a sound card, as `aplay -l` lists it.
public struct ALSACardDevice: Sendable, Equatable {
    /// Card index (the N of "hw:N,D").
    public var card: Int
    /// Card id, e.g. "PCH".
    public var cardID: String
    /// Card name, e.g. "HDA Intel PCH".
    public var cardName: String
    /// Device index (the D of "hw:N,D").
    public var device: Int
    /// Device id, e.g. "ALC3246 Analog".
    public var deviceID: String
    /// Device name.
    public var deviceName: String
    /// Subdevices, and how many are free.
    public var subdevices: Int
    public var subdevicesAvailable: Int

    /// The PCM name to open it directly, "hw:N,D".
    public var pcmName: String { "hw:\(card),\(device)" }
    /// e.g. `card 0: PCH [HDA Intel PCH], device 0: ALC3246 Analog [ALC3246 Analog]`.
    public var line: String { "card \(card): \(cardID) [\(cardName)], device \(device): \(deviceID) [\(deviceName)]" }
}

/// One PCM name from the configuration, as `aplay -L` lists it.
public struct ALSAPCMName: Sendable, Equatable {
    /// The name to pass to `ALSAOutput(device:)`, e.g. "null", "default", "hw:CARD=PCH,DEV=0".
    public var name: String
    /// Its description, lines joined with " — "; empty when the configuration has none.
    public var description: String
}

/// Lists and probes playback devices.
public enum ALSADevices {
    /// Playback devices of every card (`snd_card_next`, `snd_ctl_open("hw:N")`,
    /// `snd_ctl_pcm_next_device`, `snd_ctl_pcm_info`); empty when there is no card.
    /// A card whose control cannot be opened is skipped.
    /// - Throws: `ALSAError` when `snd_card_next` fails.
    /// - Thread: setup.
    public static func playbackCards() throws -> [ALSACardDevice] {
        var result: [ALSACardDevice] = []
        var card: Int32 = -1
        while true {
            try alsaCheck(snd_card_next(&card), "snd_card_next", device: "")
            if card < 0 { break }
            let name = "hw:\(card)"
            var ctl: OpaquePointer?
            guard snd_ctl_open(&ctl, name, 0) >= 0, let ctl else { continue }
            defer { snd_ctl_close(ctl) }
            var cardInfo: OpaquePointer?
            guard snd_ctl_card_info_malloc(&cardInfo) >= 0 else { continue }
            defer { snd_ctl_card_info_free(cardInfo) }
            guard snd_ctl_card_info(ctl, cardInfo) >= 0 else { continue }
            let cardID = String(cString: snd_ctl_card_info_get_id(cardInfo))
            let cardName = String(cString: snd_ctl_card_info_get_name(cardInfo))
            var pcmInfo: OpaquePointer?
            guard snd_pcm_info_malloc(&pcmInfo) >= 0 else { continue }
            defer { snd_pcm_info_free(pcmInfo) }
            var device: Int32 = -1
            while snd_ctl_pcm_next_device(ctl, &device) >= 0, device >= 0 {
                snd_pcm_info_set_device(pcmInfo, UInt32(device))
                snd_pcm_info_set_subdevice(pcmInfo, 0)
                snd_pcm_info_set_stream(pcmInfo, SND_PCM_STREAM_PLAYBACK)
                // Fails with ENOENT for a capture-only device: not listed.
                guard snd_ctl_pcm_info(ctl, pcmInfo) >= 0 else { continue }
                result.append(ALSACardDevice(
                    card: Int(card), cardID: cardID, cardName: cardName, device: Int(device),
                    deviceID: String(cString: snd_pcm_info_get_id(pcmInfo)),
                    deviceName: String(cString: snd_pcm_info_get_name(pcmInfo)),
                    subdevices: Int(snd_pcm_info_get_subdevices_count(pcmInfo)),
                    subdevicesAvailable: Int(snd_pcm_info_get_subdevices_avail(pcmInfo))))
            }
        }
        return result
    }

    /// PCM names that can play (`snd_device_name_hint(-1, "pcm")`, IOID absent or
    /// "Output"), in configuration order, e.g. "null", "jack", "pulse", "default".
    /// - Throws: `ALSAError` when the hints cannot be read.
    /// - Thread: setup.
    public static func playbackPCMs() throws -> [ALSAPCMName] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        try alsaCheck(snd_device_name_hint(-1, "pcm", &hints), "snd_device_name_hint(pcm)", device: "")
        guard let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var result: [ALSAPCMName] = []
        var i = 0
        while let hint = hints[i] {
            i += 1
            let ioid = takeHint(hint, "IOID")
            if let ioid, ioid != "Output" { continue }
            guard let name = takeHint(hint, "NAME") else { continue }
            let text = takeHint(hint, "DESC") ?? ""
            let lines = text.split(separator: "\n").map { $0.trimmingCharacters() }
            result.append(ALSAPCMName(name: name, description: lines.joined(separator: " — ")))
        }
        return result
    }

    /// Tries to open `name` for playback, non-blocking, and closes it at once.
    /// - Returns: nil when it opens; else the reason, e.g.
    ///   "snd_pcm_open: No such file or directory".
    /// - Thread: setup.
    public static func probe(name: String) -> String? {
        var pcm: OpaquePointer?
        let r = snd_pcm_open(&pcm, name, SND_PCM_STREAM_PLAYBACK, Int32(SND_PCM_NONBLOCK))
        if r < 0 { return ALSAError(call: "snd_pcm_open", code: r).callAndText }
        snd_pcm_close(pcm)
        return nil
    }

    /// A hint field as a Swift string (the C string is malloc'ed and freed here).
    private static func takeHint(_ hint: UnsafeMutableRawPointer, _ field: String) -> String? {
        guard let c = snd_device_name_get_hint(hint, field) else { return nil }
        defer { free(c) }
        return String(cString: c)
    }
}

extension ALSAError {
    /// "call: text", without the device.
    var callAndText: String { "\(call): \(text)" }
}

private extension Substring {
    func trimmingCharacters() -> String {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
