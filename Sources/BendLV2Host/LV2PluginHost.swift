// SPDX-License-Identifier: GPL-3.0-or-later
import CLilv
import CLV2
import CLV2Host
import Glibc

/// A headless LV2 host on liblilv, for the tests and the benches: finds a plugin by URI
/// on an LV2 path, instantiates it at a rate with the host features of `CLV2Host` (URID
/// map, log, worker, state paths, block-length options), connects every port to a
/// buffer of its own, and runs it block by block. Atom inputs take MIDI and patch:Set
/// events at frame offsets; atom outputs are read back after each block; the worker's
/// requests are run after each block, as a host's worker thread would, then handed
/// back (work_response, end_run). State is saved and restored through lilv.
///
/// Thread: one (the caller's): `run` is the plugin's audio thread.
public final class LV2PluginHost {
    public let rate: Double
    /// Longest block `run` may be given, frames (the bufsz:maxBlockLength option).
    public let maxBlock: Int
    public let uri: String
    let world: OpaquePointer
    let plugin: OpaquePointer
    let instance: UnsafeMutablePointer<LilvInstance>
    let host: OpaquePointer
    /// Audio outputs, in port order, `maxBlock` frames each.
    public private(set) var audioOutputs: [UnsafeMutablePointer<Float>] = []
    /// Audio inputs, in port order (silence unless written).
    public private(set) var audioInputs: [UnsafeMutablePointer<Float>] = []
    /// Atom inputs and outputs, in port order.
    public private(set) var atomInputs: [AtomSequence] = []
    public private(set) var atomOutputs: [AtomSequence] = []
    /// Control port values by symbol (inputs and outputs).
    private var controls: [String: UnsafeMutablePointer<Float>] = [:]
    /// Port symbols, by index.
    public private(set) var symbols: [String] = []
    /// Called with true just before the plugin's run() and false just after, and the same
    /// around the worker's responses (work_response() and end_run(), the audio thread's
    /// part of the worker): the tests count allocations there.
    public var aroundRun: ((Bool) -> Void)?
    private var active = false
    /// How often the plugin asked for a path (state:makePath) inside `instantiate`, and
    /// so far (Ardour 7 aborts on one inside instantiate).
    public private(set) var makePathCallsInInstantiate = 0
    public var makePathCalls: Int { Int(lv2host_make_path_calls(host)) }
    public let midiEvent: LV2_URID
    let sequence: LV2_URID, chunk: LV2_URID

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// - Parameters:
    ///   - lv2Path: LILV_OPTION_LV2_PATH, e.g. ".build/lv2:/usr/lib/lv2".
    ///   - stateFolder: where state:makePath puts the plugin's files.
    ///   - atomCapacity: bytes of each atom port's buffer.
    ///   - blockOptions: false: the host gives no options (no bufsz:maxBlockLength) and
    ///     no bufsz:boundedBlockLength, as a host that promises no block length; `run`
    ///     still takes blocks of up to `maxBlock` frames.
    ///   - makePath: false: the host offers no state:makePath (as some hosts).
    public init(uri: String, lv2Path: String, rate: Double, maxBlock: Int = 4096, minBlock: Int = 1, stateFolder: String,
                worker: Bool = true, atomCapacity: Int = 1 << 16, blockOptions: Bool = true, makePath: Bool = true) throws {
        // Headless: Qt-based plugins (synthv1, samplv1) make a QApplication when they are
        // instantiated, which aborts without a display unless Qt draws offscreen.
        setenv("QT_QPA_PLATFORM", "offscreen", 0)
        self.uri = uri
        self.rate = rate
        self.maxBlock = maxBlock
        world = lilv_world_new()
        let path = lilv_new_string(world, lv2Path)
        lilv_world_set_option(world, "http://drobilla.net/ns/lilv#lv2-path", path)
        lilv_node_free(path)
        lilv_world_load_all(world)
        let uriNode = lilv_new_uri(world, uri)
        defer { lilv_node_free(uriNode) }
        guard let found = lilv_plugins_get_by_uri(lilv_world_get_all_plugins(world), uriNode) else {
            lilv_world_free(world)
            throw Failure(description: "no plugin \(uri) on \(lv2Path)")
        }
        plugin = found
        host = lv2host_new(stateFolder, Int32(minBlock), Int32(maxBlock), worker ? 1 : 0, blockOptions ? 1 : 0)
        midiEvent = lv2host_urid(host, "http://lv2plug.in/ns/ext/midi#MidiEvent")
        sequence = lv2host_urid(host, "http://lv2plug.in/ns/ext/atom#Sequence")
        chunk = lv2host_urid(host, "http://lv2plug.in/ns/ext/atom#Chunk")
        if !makePath { lv2host_withhold_make_path(host) }
        guard let made = lilv_plugin_instantiate(plugin, rate, lv2host_features(host)) else {
            let log = String(cString: lv2host_log_text(host, 0))
            lv2host_free(host)
            lilv_world_free(world)
            throw Failure(description: "\(uri) did not instantiate at \(rate) Hz: \(log)")
        }
        instance = made
        makePathCallsInInstantiate = Int(lv2host_make_path_calls(host))
        if let worker = lilv_instance_get_extension_data(instance, "http://lv2plug.in/ns/ext/worker#interface") {
            lv2host_set_worker(host, worker.assumingMemoryBound(to: LV2_Worker_Interface.self), lilv_instance_get_handle(instance))
        }
        connectPorts(atomCapacity: atomCapacity)
    }

    private func connectPorts(atomCapacity: Int) {
        let n = Int(lilv_plugin_get_num_ports(plugin))
        var mins = [Float](repeating: 0, count: n), maxs = mins, defaults = mins
        lilv_plugin_get_port_ranges_float(plugin, &mins, &maxs, &defaults)
        let classes: [String: OpaquePointer] = ["audio": "http://lv2plug.in/ns/lv2core#AudioPort", "control": "http://lv2plug.in/ns/lv2core#ControlPort",
                       "atom": "http://lv2plug.in/ns/ext/atom#AtomPort", "input": "http://lv2plug.in/ns/lv2core#InputPort",
                       "cv": "http://lv2plug.in/ns/lv2core#CVPort"]
            .mapValues { (uri: String) in lilv_new_uri(world, uri)! }
        defer { classes.values.forEach { lilv_node_free($0) } }
        for i in 0..<n {
            let port = lilv_plugin_get_port_by_index(plugin, UInt32(i))
            let symbol = String(cString: lilv_node_as_string(lilv_port_get_symbol(plugin, port)))
            symbols.append(symbol)
            let isInput = lilv_port_is_a(plugin, port, classes["input"])
            if lilv_port_is_a(plugin, port, classes["audio"]) || lilv_port_is_a(plugin, port, classes["cv"]) {
                let b = UnsafeMutablePointer<Float>.allocate(capacity: maxBlock)
                b.initialize(repeating: 0, count: maxBlock)
                if isInput { audioInputs.append(b) } else { audioOutputs.append(b) }
                lilv_instance_connect_port(instance, UInt32(i), b)
            } else if lilv_port_is_a(plugin, port, classes["control"]) {
                let v = UnsafeMutablePointer<Float>.allocate(capacity: 1)
                v.initialize(to: defaults[i].isNaN ? 0 : defaults[i])
                controls[symbol] = v
                lilv_instance_connect_port(instance, UInt32(i), v)
            } else if lilv_port_is_a(plugin, port, classes["atom"]) {
                let s = AtomSequence(capacity: atomCapacity, sequenceType: sequence, chunkType: chunk)
                if isInput { atomInputs.append(s) } else { atomOutputs.append(s) }
                lilv_instance_connect_port(instance, UInt32(i), s.buffer)
            } else {
                lilv_instance_connect_port(instance, UInt32(i), nil)
            }
        }
    }

    deinit {
        if active { lilv_instance_deactivate(instance) }
        lilv_instance_free(instance)
        lv2host_free(host)
        lilv_world_free(world)
        audioOutputs.forEach { $0.deallocate() }
        audioInputs.forEach { $0.deallocate() }
        controls.values.forEach { $0.deallocate() }
    }

    /// The id the host's map gives `uri`.
    public func urid(_ uri: String) -> LV2_URID { lv2host_urid(host, uri) }

    /// The URI of `id`, or nil.
    public func uri(of id: LV2_URID) -> String? {
        let unmap = lv2host_unmap(host)!
        return unmap.pointee.unmap(unmap.pointee.handle, id).map { String(cString: $0) }
    }

    /// The buffer of control port `symbol`.
    func controlPointer(_ symbol: String) -> UnsafeMutablePointer<Float>? { controls[symbol] }

    /// A control port's value (input: used by the next run; output: the last run's).
    public subscript(symbol: String) -> Float {
        get { controls[symbol]?.pointee ?? .nan }
        set { controls[symbol]?.pointee = newValue }
    }

    public func activate() {
        guard !active else { return }
        lilv_instance_activate(instance)
        active = true
    }

    public func deactivate() {
        guard active else { return }
        lilv_instance_deactivate(instance)
        active = false
    }

    /// A MIDI message for the next run, at frame `frame` of its block (in frame order).
    public func midi(_ bytes: [UInt8], at frame: Int, port: Int = 0) {
        precondition(atomInputs[port].append(frame: frame, type: midiEvent, bytes: bytes), "atom input full")
    }

    /// Runs one block of `frames` (1…maxBlock) frames: the atom inputs' events queued
    /// since the last run, then the worker's requests (and their responses: `runWork`).
    /// Clears the atom inputs for the next block.
    public func run(frames: Int) {
        precondition(frames >= 0 && frames <= maxBlock)
        activate()
        atomOutputs.forEach { $0.prepareForOutput() }
        aroundRun?(true)
        lilv_instance_run(instance, UInt32(frames))
        aroundRun?(false)
        atomInputs.forEach { $0.clear() }
        runWork()
    }

    /// The worker's requests, then their responses, as a host does after run(): until
    /// none is left (a response may schedule more).
    func runWork() {
        while lv2host_work_pending(host) != 0 {
            lv2host_run_requests(host)
            aroundRun?(true)
            lv2host_run_responses(host)
            aroundRun?(false)
        }
    }

    /// Runs a block and returns the first two audio outputs' frames, interleaved.
    public func runInterleaved(frames: Int) -> [Float] {
        run(frames: frames)
        var out = [Float](repeating: 0, count: 2 * frames)
        let l = audioOutputs[0], r = audioOutputs.count > 1 ? audioOutputs[1] : audioOutputs[0]
        for i in 0..<frames { out[2 * i] = l[i]; out[2 * i + 1] = r[i] }
        return out
    }

    /// Log lines so far (of `type`'s URI, e.g. log:Error, or all).
    public func log(type: String? = nil) -> String {
        let text = lv2host_log_text(host, type.map { urid($0) } ?? 0)!
        defer { free(text) }
        return String(cString: text)
    }

    public func clearLog() { lv2host_log_clear(host) }

    public var workScheduled: Int { Int(lv2host_work_scheduled(host)) }
}
