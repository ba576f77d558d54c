import BendControl
import Glibc

/// The `bendsynth` command: `play`, `render`, `replay`, `devices`, `bench`.
public enum BendApp {
    static let usage = """
    usage: bendsynth COMMAND [options]

    A real-time synth: touch the pad and looping tone voices bend in pitch (x),
    gain (y) and pan (tilt).

    commands:
      play       play the instrument: a pad in the terminal, sound through ALSA
      render     render a touch script (JSON Lines) to a WAV file, faster than real time
      replay     play, render or convert an evemu recording of a touch device
      remote     play an instrument on another machine (play --listen) from this pad
      peers      list instruments nearby that accept remote players
      devices    list ALSA playback cards and PCMs, and input devices (touch, tilt)
      bench      measure the mixer: ns per voice-frame and real-time factor

    'bendsynth COMMAND --help' shows a command's options.
    """

    static let commands = ["play", "render", "replay", "devices", "bench", "remote", "peers"]

    /// Runs the command line and returns the exit code: 0 success, 2 bad usage or
    /// input, 1 runtime failure.
    public static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else {
            printErr(usage)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "-h", "--help", "help":
                print(usage)
            case "play": try PlayCommand.run(rest)
            case "render": try RenderCommand.run(rest)
            case "replay": try ReplayCommand.run(rest)
            case "devices": try DevicesCommand.run(rest)
            case "bench": try BenchCommand.run(rest)
            case "remote": try RemoteCommand.run(rest)
            case "peers": try PeersCommand.run(rest)
            default:
                throw AppError.usage("unknown command '\(command)'")
            }
            return 0
        } catch let e as InputSourceError {
            printErr("bendsynth: \(e)")
            return AppError(e).exitCode
        } catch let e as AppError {
            printErr("bendsynth: \(e)")
            if case .usage = e {
                printErr(usageLine(command))
                printErr("Try 'bendsynth \(commands.contains(command) ? command + " " : "")--help' for the options.")
            }
            return e.exitCode
        } catch {
            printErr("bendsynth: \(error)")
            return 1
        }
    }

    /// The one-line usage of `command` (the top-level one for an unknown command).
    static func usageLine(_ command: String) -> String {
        switch command {
        case "play": return "usage: bendsynth play [--device PCM] [--record FILE.wav] [--record-touches FILE.jsonl] [--script FILE.jsonl] [options]"
        case "render": return "usage: bendsynth render SCRIPT -o OUT.wav [--tone FILE] [--rate HZ] [options]"
        case "devices": return "usage: bendsynth devices"
        case "peers": return "usage: bendsynth peers [--seconds S] [--bluetooth]"
        case "remote": return "usage: bendsynth remote HOST[:PORT] [--key-file FILE] [--script FILE.jsonl] [--text MESSAGE]"
        case "bench": return "usage: bendsynth bench [--voices LIST] [--period FRAMES] [--seconds S] [--interp bandlimited|cubic|linear] [--spread] [--json]"
        default: return "usage: bendsynth COMMAND [options]   (commands: \(commands.joined(separator: ", ")))"
        }
    }

    /// Runs with the process arguments and exits with the command's code.
    public static func main() -> Never {
        exit(run(Array(CommandLine.arguments.dropFirst())))
    }
}
