import BendAudio
import CALSA

/// `bendsynth devices`: ALSA playback cards (like `aplay -l`) and PCMs (like
/// `aplay -L`), each with whether it opens for playback now.
enum DevicesCommand {
    static let specs: [OptionSpec] = [OptionSpec("help", "h", help: "show this help")]

    static func run(_ arguments: [String]) throws {
        let (options, operands) = try parse(arguments, specs: specs)
        if options.contains(where: { $0.0 == "help" }) {
            print("usage: bendsynth devices\n\nLists ALSA playback cards and PCMs and whether each opens.\n\n" + OptionParser.help(specs))
            return
        }
        guard operands.isEmpty else { throw AppError.usage("devices: unexpected argument '\(operands[0])'") }
        print(report())
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
                lines.append("  \(pcm.name)\(summary.isEmpty ? "" : " — \(summary)") — \(status(pcm.name))")
            }
        } catch {
            lines.append("  cannot list PCMs: \(error)")
        }
        return lines.joined(separator: "\n")
    }

    static func status(_ name: String) -> String {
        ALSADevices.probe(name: name).map { "does not open: \($0)" } ?? "opens"
    }
}
