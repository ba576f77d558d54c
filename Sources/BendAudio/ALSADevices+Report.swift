// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CALSA
import Glibc

extension ALSADevices {
    /// The playback cards (as `aplay -l`) and PCMs (as `aplay -L`), each with whether it
    /// opens now and, for a card, the `--device` that plays it: `bendsynth devices`, and
    /// play when no device opens. alsa-lib's own messages are silenced.
    public static func report() -> String {
        calsa_silence_library_messages()
        var lines: [String] = ["Playback cards (aplay -l):"]
        do {
            let cards = try playbackCards()
            if cards.isEmpty { lines.append("  none: this machine has no sound card") }
            for card in cards {
                lines.append("  \(card.line) — \(status(card.pcmName)) — use --device \(card.pcmName)")
            }
        } catch {
            lines.append("  cannot list cards: \(error)")
        }
        lines.append("Playback PCMs (aplay -L):")
        do {
            let pcms = try playbackPCMs()
            if pcms.isEmpty { lines.append("  none") }
            for pcm in pcms {
                let summary = pcm.description.split(separator: "\n").first.map(String.init) ?? ""
                lines.append("  \(UntrustedText.escaped(pcm.name))\(summary.isEmpty ? "" : " — \(UntrustedText.escaped(String(summary)))") — \(status(pcm.name))")
            }
        } catch {
            lines.append("  cannot list PCMs: \(error)")
        }
        return lines.joined(separator: "\n")
    }

    /// The playback PCMs' names, controls written out (`devices --pcm-names`: completion).
    public static func pcmNames() -> [String] {
        calsa_silence_library_messages()
        return ((try? playbackPCMs()) ?? []).map { UntrustedText.escaped($0.name) }
    }

    /// Whether `name` opens now. Plugins print their own complaints while being probed
    /// (libjack: "jack server is not running…"), so standard error is muted meanwhile.
    static func status(_ name: String) -> String {
        let saved = dup(2)
        let null = open("/dev/null", O_WRONLY)
        if saved >= 0 && null >= 0 { dup2(null, 2) }
        let result = probe(name: name)
        if saved >= 0 && null >= 0 { dup2(saved, 2) }
        if saved >= 0 { close(saved) }
        if null >= 0 { close(null) }
        return result.map { "does not open: \($0)" } ?? "opens"
    }
}
