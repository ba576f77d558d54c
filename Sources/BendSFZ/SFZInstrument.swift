// SPDX-License-Identifier: GPL-3.0-or-later
/// An SFZ instrument: its regions with every opcode bendsynth plays resolved, and the
/// opcodes and headers it does not play, each named once with where it first appears
/// (never dropped silently).
///
/// Headers nest as the format says: `<control>` (`default_path`), then `<global>`,
/// `<master>`, `<group>`, whose opcodes every `<region>` after them inherits, a region's
/// own opcodes last (a later header of a level clears the levels below it). Opcodes
/// played (their SFZ v1 aliases too): `sample`, `lokey`, `hikey`, `key`, `pitch_keycenter`,
/// `lovel`, `hivel`, `tune` (`pitch`), `transpose`, `volume`, `pan`, `offset`, `end`,
/// `loop_mode` (`loopmode`), `loop_start`/`loop_end` (`loopstart`/`loopend`),
/// `ampeg_attack`, `ampeg_decay`, `ampeg_sustain`, `ampeg_release`, `seq_length`,
/// `seq_position`, `default_path`, `amplitude`; `set_ccN` and the `_onccN` opcodes of
/// `SFZModulation` at the controllers' initial values; generators (`SFZGenerator`).
public struct SFZInstrument: Sendable, Equatable {
    /// Something in the file bendsynth does not play, where it first appears.
    public struct Ignored: Sendable, Equatable {
        public var name: String
        public var location: SFZLocation
    }

    public var regions: [SFZRegion]
    /// Opcodes not played, in the order they first appear.
    public var ignoredOpcodes: [Ignored]
    /// Headers not played (`<curve>`, `<effect>`, `<midi>`, …; their opcodes with them).
    public var ignoredHeaders: [Ignored]
    /// Regions that never sound (`end=-1`, a velocity or key range that is empty), where
    /// they are.
    public var silentRegions: [SFZLocation]
    /// The instrument's text files: its own and those it includes, in the order read.
    public var files: [String] = []
    /// Samples the file embeds (`<sample> name=… base64data=…`), by name as written,
    /// with where: not read yet, so a region that plays one is refused naming it.
    public var embeddedSamples: [String: SFZLocation] = [:]
    /// Whether it drives opcodes by CC or sets a controller (`SFZModulation`): taken at the
    /// controllers' initial values, which the load note says.
    public var takesInitialCCs = false

    /// The opcodes played, by name (aliases to their names).
    static let played: [String: String] = [
        "sample": "sample", "lokey": "lokey", "hikey": "hikey", "key": "key", "pitch_keycenter": "pitch_keycenter",
        "lovel": "lovel", "hivel": "hivel", "tune": "tune", "pitch": "tune", "transpose": "transpose",
        "volume": "volume", "pan": "pan", "offset": "offset", "end": "end", "effect1": "effect1", "effect2": "effect2",
        "loop_mode": "loop_mode", "loopmode": "loop_mode", "loop_start": "loop_start", "loopstart": "loop_start",
        "loop_end": "loop_end", "loopend": "loop_end", "ampeg_attack": "ampeg_attack", "ampeg_decay": "ampeg_decay",
        "ampeg_sustain": "ampeg_sustain", "ampeg_release": "ampeg_release", "seq_length": "seq_length",
        "seq_position": "seq_position", "default_path": "default_path", "amplitude": "amplitude",
    ]

    /// Levels of the headers that hold opcodes, outermost first.
    static let levels = ["control", "global", "master", "group", "region"]

    /// The instrument `document` describes; `directory` is the instrument's folder (sample
    /// paths are relative to it and `default_path`).
    /// - Throws: `SFZError` at the opcode: a value that does not read (a key that is not
    ///   0…127 or a note name, a number that is not one, an unknown `loop_mode`, a
    ///   `seq_position` past `seq_length`…), a region without a `sample`.
    public static func make(_ document: SFZDocument, directory: String) throws -> SFZInstrument {
        typealias Opcode = (name: String, value: String, location: SFZLocation)
        var scopes: [[Opcode]] = Array(repeating: [], count: levels.count)
        var level: Int?  // the current header's level; nil: none yet, or an ignored header
        var regionStart: SFZLocation?
        var instrument = SFZInstrument(regions: [], ignoredOpcodes: [], ignoredHeaders: [], silentRegions: [])
        var seenOpcodes = Set<String>(), seenHeaders = Set<String>()
        var headers = 0
        var inSample = false  // under a <sample> header
        var initialCC: [Int: Double] = [:]  // set_ccN so far, 0…127

        func flushRegion() throws {
            guard let start = regionStart else { return }
            regionStart = nil
            let opcodes = scopes[1...].joined()
            let defaultPath = scopes[0].last { $0.name == "default_path" }?.value ?? ""
            if let region = try build(Array(opcodes), at: start, directory: directory, defaultPath: defaultPath, embedded: instrument.embeddedSamples,
                                      initialCC: initialCC) {
                if region.hikey < region.lokey || region.hivel < region.lovel || region.end.map({ $0 < 0 }) == true {
                    instrument.silentRegions.append(start)
                } else {
                    instrument.regions.append(region)
                }
            }
        }

        for item in document.items {
            switch item {
            case .header(let name, let location):
                try flushRegion()
                headers += 1
                inSample = name == "sample"
                guard let l = levels.firstIndex(of: name) else {
                    level = nil
                    if seenHeaders.insert(name).inserted { instrument.ignoredHeaders.append(Ignored(name: "<\(name)>", location: location)) }
                    continue
                }
                level = l
                // A header clears its own level and those it holds; a new `<control>` only
                // its own: it starts again from no `default_path`, as sfizz does.
                if l == 0 { scopes[0] = [] } else { for k in l..<levels.count { scopes[k] = [] } }
                if name == "region" { regionStart = location }
            case .opcode(let name, let value, let location):
                if inSample && name == "name" { instrument.embeddedSamples[value] = location }
                guard let l = level else {
                    // Under an ignored header (named already), or before any header.
                    if headers > 0 || seenOpcodes.contains(name) { continue }
                    seenOpcodes.insert(name)
                    instrument.ignoredOpcodes.append(Ignored(name: name + " before any header", location: location))
                    continue
                }
                if let cc = SFZModulation.setCC(name) {
                    guard let v = SFZValue.real(value), (0...127).contains(v) else {
                        throw SFZError(file: location.file, line: location.line, "\(name)=\(value): expected a controller value 0…127")
                    }
                    initialCC[cc] = v
                    instrument.takesInitialCCs = true
                    continue
                }
                if let (target, cc) = SFZModulation.parse(name) {
                    scopes[l].append(("\(target)_oncc\(cc)", value, location))
                    instrument.takesInitialCCs = true
                    continue
                }
                guard let canonical = played[name] else {
                    if seenOpcodes.insert(name).inserted { instrument.ignoredOpcodes.append(Ignored(name: name, location: location)) }
                    continue
                }
                // default_path works at any level, for the regions after it.
                scopes[canonical == "default_path" ? 0 : l].append((canonical, value, location))
            }
        }
        try flushRegion()
        for item in document.items {
            let file: String
            switch item {
            case .header(_, let l): file = l.file
            case .opcode(_, _, let l): file = l.file
            }
            if instrument.files.last != file && !instrument.files.contains(file) { instrument.files.append(file) }
        }
        return instrument
    }

    /// The region of `opcodes` (inherited first, its own last), or nil.
    static func build(_ opcodes: [(name: String, value: String, location: SFZLocation)], at start: SFZLocation, directory: String,
                      defaultPath: String, embedded: [String: SFZLocation] = [:], initialCC: [Int: Double] = [:]) throws -> SFZRegion? {
        guard let sample = opcodes.last(where: { $0.name == "sample" }) else {
            throw SFZError(file: start.file, line: start.line, "<region> has no sample; expected sample=FILE in it or in a header above it")
        }
        func path(_ name: String) -> String {
            let relative = String((defaultPath + name).map { $0 == "\\" ? "/" : $0 })
            return relative.hasPrefix("/") || directory.isEmpty ? relative : directory + "/" + relative
        }
        if let at = embedded[sample.value] {
            throw SFZError(file: sample.location.file, line: sample.location.line,
                           "sample=\(sample.value) is embedded in the instrument (<sample> at \(at)), which bendsynth does not read yet; expected it as a file beside the instrument")
        }
        // A generator (`*sine`, …) is no file: no folder or default_path before it.
        if sample.value.hasPrefix("*") && SFZGenerator(rawValue: sample.value) == nil {
            throw SFZError(file: sample.location.file, line: sample.location.line,
                           "sample=\(sample.value): no such generator; expected a file or one of \(SFZGenerator.names)")
        }
        let resolved = SFZGenerator(rawValue: sample.value) != nil ? sample.value : path(sample.value)
        var region = SFZRegion(location: start, sample: resolved, sampleLocation: sample.location)
        var driven: [(target: String, cc: Int, depth: Double)] = []
        var amplitude = 100.0  // percent: folded into `volume` below
        for (name, value, location) in opcodes {
            func fail(_ expected: String) -> SFZError {
                SFZError(file: location.file, line: location.line, "\(name)=\(value): expected \(expected)")
            }
            func key() throws -> Int { guard let k = SFZValue.key(value) else { throw fail("a key 0…127 or a note name such as c#4") }; return k }
            func integer(_ range: ClosedRange<Int>) throws -> Int {
                guard let n = SFZValue.integer(value), range.contains(n) else { throw fail("a whole number \(range.lowerBound)…\(range.upperBound)") }
                return n
            }
            func real(_ range: ClosedRange<Double>, _ unit: String) throws -> Double {
                guard let x = SFZValue.real(value), range.contains(x) else {
                    throw fail("a number \(shown(range.lowerBound))…\(shown(range.upperBound))\(unit)")
                }
                return x
            }
            switch name {
            case "lokey": region.lokey = try key()
            case "hikey": region.hikey = try key()
            case "key":
                let k = try key()
                region.lokey = k; region.hikey = k; region.pitchKeycenter = k; region.keycenterFromSample = false
            case "pitch_keycenter":
                if value == "sample" { region.keycenterFromSample = true; region.pitchKeycenter = nil } else {
                    region.pitchKeycenter = try key(); region.keycenterFromSample = false
                }
            case "lovel": region.lovel = max(try integer(0...127), 1)
            case "hivel": region.hivel = try integer(0...127)
            case "tune": region.tune = try real(-9600...9600, " cents")
            case "transpose": region.transpose = try integer(-127...127)
            case "volume": region.volume = try real(-144...6, " dB")
            case "amplitude": amplitude = try real(0...100, " %")
            case "pan": region.pan = try real(-100...100, "")
            case "effect1": region.effect1 = try real(0...100, " %")
            case "effect2": region.effect2 = try real(0...100, " %")
            case "offset": region.offset = try integer(0...Int(Int32.max))
            case "end": region.end = try integer(-1...Int(Int32.max))
            case "loop_mode":
                guard let mode = SFZRegion.LoopMode(rawValue: value) else { throw fail("no_loop, one_shot, loop_continuous or loop_sustain") }
                region.loopMode = mode
            case "loop_start": region.loopStart = try integer(0...Int(Int32.max))
            case "loop_end": region.loopEnd = try integer(0...Int(Int32.max))
            case "ampeg_attack": region.attack = try real(0...100, " s")
            case "ampeg_decay": region.decay = try real(0...100, " s")
            case "ampeg_sustain": region.sustain = try real(0...100, " %")
            case "ampeg_release": region.release = try real(0...100, " s")
            case "seq_length": region.sequenceLength = try integer(1...100)
            case "seq_position": region.sequencePosition = try integer(1...100)
            default:
                // sample (above), or a CC's drive (`SFZModulation`, named target_onccN).
                if let (target, cc) = SFZModulation.parse(name) {
                    let (range, unit) = SFZModulation.depthRange(target)
                    driven.append((target, cc, try real(range, unit)))
                }
            }
        }
        for d in driven {
            SFZModulation.apply(d.target, depth: d.depth, value: (initialCC[d.cc] ?? 0) / 127, to: &region, amplitude: &amplitude)
        }
        if amplitude != 100 { region.volume += SFZModulation.decibels(amplitude: amplitude) }
        if region.sequencePosition > region.sequenceLength {
            throw SFZError(file: start.file, line: start.line,
                           "<region>: seq_position=\(region.sequencePosition) is past seq_length=\(region.sequenceLength); expected 1…\(region.sequenceLength)")
        }
        if let s = region.loopStart, let e = region.loopEnd, e < s {
            throw SFZError(file: start.file, line: start.line, "<region>: loop_end=\(e) is before loop_start=\(s); expected loop_start ≤ loop_end")
        }
        return region
    }

    /// Regions that share keys, velocities and round-robin turn with an earlier region:
    /// layers (a second microphone, an accordion's reeds). bendsynth sounds the first
    /// region of each stack only, so the load note names the others.
    public var stackedRegions: [SFZLocation] {
        regions.indices.filter { i in
            let a = regions[i]
            return regions[..<i].contains { b in
                a.lokey <= b.hikey && b.lokey <= a.hikey && a.lovel <= b.hivel && b.lovel <= a.hivel
                    && a.sequenceLength == b.sequenceLength && a.sequencePosition == b.sequencePosition
            }
        }.map { regions[$0].location }
    }

    static func shown(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(x) }

    /// The format's headers bendsynth reads past (their opcodes with them).
    static let otherHeaders: Set<String> = ["<curve>", "<effect>", "<midi>", "<sample>"]

    /// One line naming what the instrument holds that bendsynth does not play, or nil. A
    /// header the format does not have (a typo: `<regoin>`) says that what follows it is
    /// skipped too: a region under it is lost.
    public var ignoredNote: String? {
        let all = ignoredHeaders + ignoredOpcodes
        guard !all.isEmpty else { return nil }
        let first = all.map(\.location.file).first
        let named = all.map { item in
            let at = item.location.file == first ? "line \(item.location.line)" : "\(item.location)"
            let unknown = item.name.hasPrefix("<") && !Self.otherHeaders.contains(item.name)
            return "\(item.name) (\(at)\(unknown ? ": not an SFZ header; its opcodes up to the next header are skipped with it" : ""))"
        }
        return "not played, ignored: " + named.joined(separator: ", ")
    }
}
