// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendEvdev
import BendSystem

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
        let (options, operands) = try OptionParser.parse(arguments, specs: specs + CommandTable.configSpecs)
        if options.contains(where: { $0.0 == "help" }) {
            print(CommandTable.help("devices"))
            return
        }
        guard operands.isEmpty else { throw AppError.usage("devices: unexpected argument '\(operands[0])'") }
        if options.contains(where: { $0.0 == "pcm-names" }) {
            for name in ALSADevices.pcmNames() { print(name) }
            return
        }
        print(ALSADevices.report())
        print(JACKServerProbe.report())
        print(EvdevDiscovery.report())
    }
}
