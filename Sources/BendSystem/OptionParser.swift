// SPDX-License-Identifier: GPL-3.0-or-later
import CGetopt
import Glibc

/// Parses options with glibc's `getopt_long` (GNU conventions: `--name value`,
/// `--name=value`, `-x value`, bundled short flags, `--` ends options, options and
/// operands may mix). getopt's own messages are off (`opterr = 0`); errors are thrown.
public enum OptionParser {
    /// The options found, in order, as (long name, value), and the operands.
    /// - Throws: `UsageError` naming the option at fault.
    public static func parse(_ arguments: [String], specs: [OptionSpec]) throws -> (options: [(String, String?)], operands: [String]) {
        // getopt_long wants argv[0] and mutable C strings that outlive the parse.
        let argv = (["bendsynth"] + bindOptionalValues(arguments, specs: specs)).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var cArgv = argv + [nil]
        let names = specs.map { strdup($0.long) }
        defer { names.forEach { free($0) } }
        var longOptions = specs.enumerated().map { i, spec in
            option(name: UnsafePointer(names[i]), has_arg: spec.value == nil ? no_argument : spec.valueIsOptional ? optional_argument : required_argument,
                   flag: nil, val: Int32(1000 + i))
        }
        // Every flag also has its negation (`--no-FLAG`, and `--X` for a flag named
        // `no-X`), which takes back an earlier occurrence: the config file's entries come
        // before the command line, so the command line can turn a config flag off.
        let negations = negationNames(specs)
        let negationNames = negations.map { strdup($0.name) }
        defer { negationNames.forEach { free($0) } }
        for (i, _) in negations.enumerated() {
            longOptions.append(option(name: UnsafePointer(negationNames[i]), has_arg: no_argument, flag: nil, val: Int32(3000 + i)))
        }
        longOptions.append(option(name: nil, has_arg: 0, flag: nil, val: 0))
        // "+"-less: GNU permutes so operands may come first; ":" first reports a missing
        // value as ':' instead of '?'.
        var shortString = ":"
        for spec in specs {
            if let c = spec.short { shortString += String(c) + (spec.value == nil ? "" : ":") }
        }
        cgetopt_set_optind(0)  // 0 makes glibc reinitialise its state (tests parse many times)
        cgetopt_set_opterr(0)
        var found: [(String, String?)] = []
        try cArgv.withUnsafeMutableBufferPointer { argvBuffer in
            let argc = Int32(argvBuffer.count - 1)
            while true {
                var index: Int32 = -1
                let c = getopt_long(argc, argvBuffer.baseAddress!, shortString, longOptions, &index)
                if c == -1 { break }
                let optind = cgetopt_optind(), optopt = cgetopt_optopt()
                let offending = optind > 0 && Int(optind) <= Int(argc) ? String(cString: argvBuffer[Int(optind) - 1]!) : "?"
                switch c {
                case Int32(UInt8(ascii: "?")):
                    if optopt != 0 && optopt < 1000 {
                        throw UsageError("unknown option '-\(Character(Unicode.Scalar(UInt8(optopt))))'")
                    }
                    throw UsageError("unknown option '\(offending)'" + suggestion(offending, specs: specs, negations: negations.map(\.name)))
                case Int32(UInt8(ascii: ":")):
                    if optopt >= 1000, let spec = specs[safe: Int(optopt) - 1000] {
                        throw UsageError("option '--\(spec.long)' needs a value (\(spec.value ?? "VALUE"))")
                    }
                    throw UsageError("option '\(offending)' needs a value")
                case 3000...:
                    let negated = specs[negations[Int(c) - 3000].spec].long
                    found.removeAll { $0.0 == negated }
                default:
                    let spec: OptionSpec?
                    if c >= 1000 {
                        spec = specs[safe: Int(c) - 1000]
                    } else {
                        spec = specs.first { $0.short.map { Int32($0.asciiValue ?? 0) } == c }
                    }
                    guard let spec else { throw UsageError("unknown option '\(offending)'") }
                    found.append((spec.long, spec.value == nil ? nil : cgetopt_optarg().map { String(cString: $0) } ?? ""))
                }
            }
        }
        // After parsing, glibc has permuted the operands to the end of argv.
        let operands = (Int(cgetopt_optind())..<argv.count).map { String(cString: cArgv[$0]!) }
        return (found, operands)
    }

    /// "; did you mean '--X'?" for a mistyped long option (its name before any `=`): the
    /// nearest of the command's options and their negations (`Suggestion`), or "".
    static func suggestion(_ offending: String, specs: [OptionSpec], negations: [String]) -> String {
        guard offending.hasPrefix("--") else { return "" }
        let name = String(offending.prefix { $0 != "=" })
        return Suggestion.didYouMean(name, in: (specs.map(\.long) + negations).map { "--" + $0 })
    }

    /// getopt binds an optional value only when it is written with `=`: `--listen` alone
    /// takes the next word as its value only when that word is one (`takesAsValue`: an
    /// address or port), and is bare (the empty value: the default) otherwise, wherever
    /// it stands — before another option, at the end, before an operand. Written here as
    /// `--listen=WORD` or `--listen=` for getopt; a unique abbreviation counts too.
    static func bindOptionalValues(_ arguments: [String], specs: [OptionSpec]) -> [String] {
        var out: [String] = []
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if arg == "--" { out += arguments[(i - 1)...]; break }
            guard arg.hasPrefix("--"), !arg.contains("=") else { out.append(arg); continue }
            let name = arg.dropFirst(2)
            let spec = specs.first { $0.long == name } ?? {
                let matches = specs.filter { $0.long.hasPrefix(name) }
                return matches.count == 1 ? matches[0] : nil
            }()
            guard let spec, spec.valueIsOptional, !name.isEmpty else { out.append(arg); continue }
            if i < arguments.count, spec.takesAsValue(arguments[i]) {
                out.append("--\(spec.long)=\(arguments[i])")
                i += 1
            } else {
                out.append("--\(spec.long)=")
            }
        }
        return out
    }

    /// The negation of each flag of `specs` that has one: `--no-FLAG`, or `--X` for a flag
    /// named `no-X` (`--help` and names that would clash with an option have none).
    public static func negationNames(_ specs: [OptionSpec]) -> [(name: String, spec: Int)] {
        let longs = Set(specs.map(\.long))
        return specs.enumerated().compactMap { i, spec in
            guard spec.value == nil, spec.long != "help", spec.long != "version" else { return nil }
            let name = spec.long.hasPrefix("no-") ? String(spec.long.dropFirst(3)) : "no-" + spec.long
            return longs.contains(name) ? nil : (name, i)
        }
    }

    /// The line `--help` ends with when `specs` has flags with negations.
    public static func negationNote(_ specs: [OptionSpec]) -> String? {
        negationNames(specs).isEmpty ? nil
            : "Each flag can be turned off again by a later --no-FLAG (a --no-X flag by --X): the config file's entries come first, so the command line wins."
    }

    /// Help lines for `specs`, aligned.
    public static func help(_ specs: [OptionSpec]) -> String {
        let lefts = specs.map { spec -> String in
            var s = spec.short.map { "-\($0), " } ?? "    "
            s += "--\(spec.long)"
            if let v = spec.value { s += " \(v)" }
            return s
        }
        let width = (lefts.map(\.count).max() ?? 0) + 2
        return zip(lefts, specs).map { left, spec in
            "  " + left + String(repeating: " ", count: width - left.count) + spec.help
        }.joined(separator: "\n")
    }
}

extension Array {
    /// The element at `i`, or nil outside the array.
    public subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
