import BendAudio
import BendEvdev
import BendSystem
import CALSA
import Glibc

/// `bendsynth devices`: ALSA playback cards (like `aplay -l`) and PCMs (like
/// `aplay -L`), each with whether it opens for playback now.
enum DevicesCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("pcm-names", help: "print only the names of the playback PCMs, one a line (for scripts and completion)"),
        OptionSpec("help", "h", help: "show this help"),
    ]

    static let usage = """
    usage: bendsynth devices [--pcm-names]

    Lists ALSA playback cards and PCMs and whether each opens, and input devices
    (/dev/input) with their kind, axes and resolution, or why each is skipped.

    """

    static func run(_ arguments: [String]) throws {
        let (options, operands) = try parse(arguments, specs: specs + ConfigFile.specs)
        if options.contains(where: { $0.0 == "help" }) {
            print(CommandTable.help("devices"))
            return
        }
        guard operands.isEmpty else { throw AppError.usage("devices: unexpected argument '\(operands[0])'") }
        if options.contains(where: { $0.0 == "pcm-names" }) {
            calsa_silence_library_messages()
            for pcm in (try? ALSADevices.playbackPCMs()) ?? [] { print(UntrustedText.escaped(pcm.name)) }
            return
        }
        print(report())
        print(jackReport())
        print(EvdevDiscovery.report())
    }

    /// The listing as text (also printed by `play` when no device opens).
    static func report() -> String {
        calsa_silence_library_messages()
        var lines: [String] = ["Playback cards (aplay -l):"]
        do {
            let cards = try ALSADevices.playbackCards()
            if cards.isEmpty { lines.append("  none: this machine has no sound card") }
            for card in cards {
                lines.append("  \(card.line) — \(status(card.pcmName)) — use --device \(card.pcmName)")
            }
        } catch {
            lines.append("  cannot list cards: \(error)")
        }
        lines.append("Playback PCMs (aplay -L):")
        do {
            let pcms = try ALSADevices.playbackPCMs()
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

    /// The JACK server `play -a jack` would play into, if one runs.
    static func jackReport() -> String {
        guard let s = JACKServerProbe.running() else {
            return "JACK server (for play -a jack):\n  none running as '\(JACKServerProbe.serverName)' — start jackd, or run under PipeWire with pw-jack"
        }
        return "JACK server (for play -a jack):\n  '\(UntrustedText.escaped(s.name))' runs: \(s.rate) Hz, period \(s.periodFrames) frames — play -a jack plays into it"
    }

    /// Whether `name` opens now. Plugins print their own complaints while being probed
    /// (libjack: "jack server is not running…"), so standard error is muted meanwhile.
    static func status(_ name: String) -> String {
        let saved = dup(2)
        let null = open("/dev/null", O_WRONLY)
        if saved >= 0 && null >= 0 { dup2(null, 2) }
        let result = ALSADevices.probe(name: name)
        if saved >= 0 && null >= 0 { dup2(saved, 2) }
        if saved >= 0 { close(saved) }
        if null >= 0 { close(null) }
        return result.map { "does not open: \($0)" } ?? "opens"
    }
}
