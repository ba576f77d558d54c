// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import BendInstrument
import BendOSC
import Foundation

/// The `play` options of the OSC input (`--osc` and friends).
struct OSCOptions {
    /// `[ADDR:]PORT`; nil: no OSC input.
    var listen: String?
    var tcp = false
    var allow: [String] = []
    /// Seconds of silence that end a TUIO sender's touches (it has a heartbeat); 0: never.
    var timeout = 2.0
    /// Seconds of silence that end a change-only sender's touches; 0: never.
    var restTimeout = OSCInterpreter.defaultRestTimeout

    static let specs: [OptionSpec] = [
        OptionSpec("osc", value: "[ADDR:]PORT", help: "receive OSC and TUIO (an input source); loopback unless ADDR names another interface (see docs/OSC.md)"),
        OptionSpec("osc-tcp", help: "receive OSC over TCP (4-byte size before each packet, as liblo sends) instead of UDP"),
        OptionSpec("osc-allow", value: "ADDR[,ADDR]", help: "senders heard by a non-loopback --osc listener (numeric IPv4/IPv6; loopback is always heard)"),
        OptionSpec("osc-timeout", value: "S", help: "a TUIO sender (it sends alive/fseq every frame) silent this long has its touches ended (0…3600 s, 0 never; default 2)"),
        OptionSpec("osc-rest-timeout", value: "S", help: "a sender that sends only changes (TouchOSC, /bendsynth/touch) silent this long has its touches ended; a move brings each back (0…86400 s, 0 never; default 300)"),
    ]

    /// Applies one parsed option; returns false when it is not an OSC option.
    mutating func apply(_ name: String, _ value: String?) throws -> Bool {
        switch name {
        case "osc": listen = value
        case "osc-tcp": tcp = true
        case "osc-allow": allow += (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        case "osc-timeout": timeout = try OptionValue.number(value, option: name, in: 0...3600)
        case "osc-rest-timeout": restTimeout = try OptionValue.number(value, option: name, in: 0...86_400)
        default: return false
        }
        return true
    }

    /// The OSC source asked for, if any. - Throws: `AppError.usage` for a bad address,
    /// a non-loopback listener without `--osc-allow`, or OSC options without `--osc`.
    func settings() throws -> SourceSettings? {
        guard let listen else {
            if tcp || !allow.isEmpty { throw AppError.usage("play: --osc-tcp and --osc-allow need --osc [ADDR:]PORT") }
            return nil
        }
        do {
            return .osc(address: try OSCListenAddress(listen, allow: allow), tcp: tcp, timeout: timeout, restTimeout: restTimeout)
        } catch {
            throw AppError.usage("play: \(error)")
        }
    }
}
