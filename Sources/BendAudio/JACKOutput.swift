// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import CJack
import Glibc

/// Stereo playback as a native JACK client (libjack): output ports `out_L` and `out_R`,
/// rendered by JACK's process callback — the render thread — through the one period
/// step (`RenderDriver.period`) into the ports' buffers (`PeriodBuffer.planar`).
///
/// `init` opens the client (never starting a server: JACK_DEFAULT_SERVER names it)
/// and registers the ports; rate and period are the server's. `start` activates it
/// and connects the ports to the first two `system:playback_*` (unless told not to);
/// `stop` deactivates and closes it. When the server grows its period beyond the
/// mixer's bound, the callback renders it in steps of the bound. Xruns come from
/// JACK's xrun callback. When the server goes away (`jack_on_info_shutdown`) the
/// output fails: `failureDescription` says so and the `whenEnded` handler runs.
public final class JACKOutput: AudioOutput, @unchecked Sendable {
    /// The longest client name a JACK server takes, bytes: `jack_client_name_size()` (65
    /// in jack2, the NUL counted) less 2 — jackd2 refuses a 64-byte name as "too long to be
    /// used as a JACK client name" although the client library lets it through.
    public static var maximumClientNameBytes: Int { Int(jack_client_name_size()) - 2 }

    /// The client name the server granted (it adds `-01`… when the name is taken).
    public let clientName: String
    /// The server: JACK_DEFAULT_SERVER, else "default".
    public let serverName: String
    /// The server's rate, frames per second.
    public let rate: Int
    /// The server's period when the client opened, frames: the mixer's period bound.
    public let periodFrames: Int
    /// Connect to `system:playback_*` at start.
    public let connectsToSystem: Bool
    /// What `out_L` and `out_R` were connected to at start.
    public private(set) var connections: [String] = []
    public private(set) var realtimeNote: String?
    public private(set) var loadMeter: RenderLoadMeter?

    private var client: OpaquePointer?
    private let sink: UnsafeMutablePointer<JACKSink>
    private let counters = JACKCounters()
    private let notices: JACKNotices
    /// Waits for libjack's shutdown callback (a POSIX semaphore: the callback runs on
    /// libjack's own thread, where only async-signal-safe calls are allowed) and then
    /// tells `whenEnded`; one wait, no loop.
    private var watcher: SystemThread?
    private var ended: (@Sendable () -> Void)?
    private var started = false

    /// Opens a client and registers `out_L` and `out_R`.
    /// - Parameters:
    ///   - name: the client name asked for (`--jack-name`).
    ///   - connect: connect the ports to the first two `system:playback_*` at start.
    /// - Throws: `JACKError` (no server running, name refused, port registration failed).
    /// - Thread: setup.
    public init(name: String = "bendsynth", connect: Bool = true) throws {
        serverName = ProcessInfoLite.environment("JACK_DEFAULT_SERVER") ?? "default"
        var status = jack_status_t(0)
        JACKLibraryLog.silence()  // our one line, not libjack's five
        // JackNoStartServer: a missing server is an error, never a jackd started behind
        // the player's back (libjack would read ~/.jackdrc and start one).
        guard let c = cjack_client_open(name, JackNoStartServer, &status) else {
            throw JACKError(call: "jack_client_open", client: name, server: serverName, status: status.rawValue,
                            detail: "start jackd, or run bendsynth under PipeWire with pw-jack")
        }
        clientName = String(cString: jack_get_client_name(c))
        rate = Int(jack_get_sample_rate(c))
        periodFrames = max(Int(jack_get_buffer_size(c)), 1)
        connectsToSystem = connect
        let audio = cjack_default_audio_type()
        let flags = UInt(JackPortIsOutput.rawValue)
        guard let l = jack_port_register(c, "out_L", audio, flags, 0),
              let r = jack_port_register(c, "out_R", audio, flags, 0) else {
            jack_client_close(c)
            throw JACKError(call: "jack_port_register", client: name, server: serverName, code: -1,
                            detail: "cannot register out_L and out_R")
        }
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 2 * periodFrames)
        scratch.initialize(repeating: 0, count: 2 * periodFrames)
        notices = JACKNotices()
        sink = .allocate(capacity: 1)
        sink.initialize(to: JACKSink(left: l, right: r, driver: nil, scratch: scratch, bound: periodFrames,
                                     counters: counters, notices: notices, client: c))
        counters.set(.periodFrames, periodFrames)
        counters.set(.bufferFrames, periodFrames)
        client = c
        let arg = UnsafeMutableRawPointer(sink)
        jack_set_process_callback(c, { nframes, arg in
            arg!.assumingMemoryBound(to: JACKSink.self).pointee.process(frames: Int(nframes))
            return 0
        }, arg)
        jack_set_thread_init_callback(c, { arg in
            // Every thread libjack makes for the client runs this: its message-buffer
            // thread (at once, inside jack_set_thread_init_callback), its notification
            // thread (at activation) and the process thread, before its first cycle.
            // Denormals flushed on all; only the process thread — the render thread — is
            // watched under make bench's render_watch.so (the other two lock mutexes in
            // their own loops: counted, they were the bench's "2 mutex locks").
            // jack_client_thread_id is 0 until activation, and the process thread's id
            // once pthread_create has stored it (glibc does so before the thread runs).
            FloatEnvironment.flushDenormalsOnThisThread()
            guard let c = arg!.assumingMemoryBound(to: JACKSink.self).pointee.client else { return }
            if pthread_equal(pthread_self(), jack_client_thread_id(c)) != 0 { RenderThreadWatch.begin() }
        }, arg)
        jack_set_xrun_callback(c, { arg in
            arg!.assumingMemoryBound(to: JACKSink.self).pointee.counters.add(.xruns)
            return 0
        }, arg)
        jack_set_buffer_size_callback(c, { nframes, arg in
            // The process callback follows the frame count it is given; this counts the
            // changes (jackd2 also calls it at activation, with the same size).
            let counters = arg!.assumingMemoryBound(to: JACKSink.self).pointee.counters
            if counters.get(.bufferFrames) != Int(nframes) {
                counters.set(.bufferFrames, Int(nframes))
                counters.add(.bufferChanges)
            }
            return 0
        }, arg)
        jack_set_port_connect_callback(c, { a, b, connect, arg in
            // A connection to midi_out asks for the MPE configuration again (counted; the
            // control side sends it). jack_port_by_id reads the client's graph copy.
            // A connection to or from midi_in counts its connections (the control side
            // ends the notes when the last one goes: `MIDISenderWatch`).
            let s = arg!.assumingMemoryBound(to: JACKSink.self).pointee
            guard let c = s.client else { return }
            let pa = jack_port_by_id(c, a), pb = jack_port_by_id(c, b)
            if let input = s.midi?.input, pa == input || pb == input {
                s.counters.add(.midiInConnections, connect != 0 ? 1 : -1)
                s.counters.set(.midiInChangedAt, Int(truncatingIfNeeded: s.driver?.mixer.position ?? 0))
                s.counters.add(.midiInConnectionChanges)
            }
            guard connect != 0, let out = s.midi?.output else { return }
            if pa == out || pb == out { s.counters.add(.midiOutConnections) }
        }, arg)
        jack_on_info_shutdown(c, { _, reason, arg in
            // As a signal handler would: copy the reason, set the flag, post the semaphore.
            let s = arg!.assumingMemoryBound(to: JACKSink.self).pointee
            s.notices.shutdown(reason: reason)
            s.counters.set(.shutdown, 1)
            s.counters.set(.running, 0)
            s.notices.wake()
        }, arg)
    }

    deinit {
        stop()
        sink.pointee.midi?.received.deallocate()
        sink.pointee.midi?.outgoing.deallocate()
        sink.pointee.scratch.deallocate()
        sink.deinitialize(count: 1)
        sink.deallocate()
        notices.deallocate()
        counters.deallocate()
    }

    /// e.g. `JACK client 'bendsynth' on server 'default': 48000 Hz, period 64 frames (1.3 ms), float32 stereo, out_L/out_R → system:playback_1, system:playback_2`.
    public var description: String {
        let period = currentPeriodFrames
        let target = connections.isEmpty ? (connectsToSystem ? "not connected (no system:playback_* ports)" : "not connected (--no-connect)")
                                         : "→ " + connections.joined(separator: ", ")
        let midiPorts = [midi?.received != nil ? "midi_in" : nil, midi?.outgoing != nil ? "midi_out" : nil].compactMap { $0 }
        return "JACK client '\(clientName)' on server '\(serverName)': \(rate) Hz, period \(period) frames ("
            + String(format: "%.1f", Double(period) * 1000 / Double(max(rate, 1))) + " ms), float32 stereo, out_L/out_R \(target)"
            + (midiPorts.isEmpty ? "" : ", MIDI ports " + midiPorts.joined(separator: ", "))
    }

    /// The period the process callback was last given, frames. - Thread: any.
    public var currentPeriodFrames: Int { counters.get(.periodFrames) }
    /// Xruns JACK reported. - Thread: any.
    public var xruns: Int { counters.get(.xruns) }
    /// Periods rendered. - Thread: any.
    public var periodsRendered: Int { counters.get(.periods) }
    /// Buffer-size changes the server announced. - Thread: any.
    public var bufferSizeChanges: Int { counters.get(.bufferChanges) }
    /// Set once the server went away. - Thread: any.
    public var failureDescription: String? {
        guard counters.get(.shutdown) != 0 else { return nil }
        let why = notices.reason
        return "the JACK server '\(serverName)' went away" + (why.isEmpty ? "" : ": \(why)")
    }

    /// Runs `handler` (on a thread of this output) once the server has gone away.
    /// Call before `start`. - Thread: setup.
    public func whenEnded(_ handler: @escaping @Sendable () -> Void) {
        ended = handler
    }

    /// The MIDI ports' rings, once `enableMIDI` made them.
    public private(set) var midi: JACKMIDIRings?

    /// Registers the MIDI ports asked for — `midi_in` (events read in the process
    /// callback, with their frames, into `midi.received`) and `midi_out` (written there
    /// from `midi.outgoing`) — and returns their rings. Call once, before `start`.
    /// - Parameter capacity: packets each ring holds (a full ring drops and counts).
    /// - Throws: `JACKError` when a port cannot be registered or already started.
    /// - Thread: setup.
    public func enableMIDI(input: Bool, output: Bool, capacity: Int = 8192) throws -> JACKMIDIRings {
        guard let client, !started, midi == nil else {
            throw JACKError(call: "enableMIDI", client: clientName, server: serverName, code: -1, detail: "only once, before start")
        }
        let type = cjack_default_midi_type()
        var inPort: OpaquePointer?, outPort: OpaquePointer?
        if input {
            inPort = jack_port_register(client, "midi_in", type, UInt(JackPortIsInput.rawValue), 0)
            guard inPort != nil else { throw JACKError(call: "jack_port_register", client: clientName, server: serverName, code: -1, detail: "cannot register midi_in") }
        }
        if output {
            outPort = jack_port_register(client, "midi_out", type, UInt(JackPortIsOutput.rawValue), 0)
            guard outPort != nil else { throw JACKError(call: "jack_port_register", client: clientName, server: serverName, code: -1, detail: "cannot register midi_out") }
        }
        let received = MIDIPortQueue(capacity: input ? capacity : 2)
        let outgoing = MIDIPortQueue(capacity: output ? capacity : 2)
        sink.pointee.midi = JACKMIDISink(input: inPort, output: outPort, received: received.ring, outgoing: outgoing.ring, counters: counters)
        let rings = JACKMIDIRings(received: input ? received : nil, outgoing: output ? outgoing : nil, counters: counters)
        midi = rings
        return rings
    }

    /// Activates the client: from now on JACK's process thread calls `driver.period`
    /// for every period (measured by this output's load meter); connects the ports.
    /// - Throws: `JACKError` when the mixer's rate is not the server's, when already
    ///   started, or when `jack_activate` fails; `SystemError` from the watcher thread.
    /// - Thread: setup.
    public func start(_ driver: RenderDriver) throws {
        guard let client, !started else {
            throw JACKError(call: "start", client: clientName, server: serverName, code: -1,
                            detail: started ? "already started" : "the client is closed")
        }
        guard Int(driver.mixer.configuration.rate.rounded()) == rate else {
            throw JACKError(call: "start", client: clientName, server: serverName, code: -1,
                            detail: "mixer rate \(driver.mixer.configuration.rate) Hz ≠ the server's \(rate) Hz")
        }
        guard driver.mixer.configuration.maxPeriodFrames >= periodFrames else {
            throw JACKError(call: "start", client: clientName, server: serverName, code: -1,
                            detail: "mixer period bound \(driver.mixer.configuration.maxPeriodFrames) < the server's period \(periodFrames) frames")
        }
        let meter = RenderLoadMeter(periodNanos: UInt64(periodFrames) * 1_000_000_000 / UInt64(max(rate, 1)))
        loadMeter = meter
        sink.pointee.driver = driver.measured(by: meter.probe)
        let memoryNote = SystemThread.lockMemory()
        let notices = self.notices, counters = self.counters, handler = ended
        watcher = try SystemThread(name: "bendsynth jack") {
            notices.waitForWake()
            if counters.get(.shutdown) != 0 { handler?() }
        }
        counters.set(.running, 1)
        let r = jack_activate(client)
        guard r == 0 else {
            counters.set(.running, 0)
            stopWatcher()
            throw JACKError(call: "jack_activate", client: clientName, server: serverName, code: r)
        }
        started = true
        if connectsToSystem { connections = connectToSystem(client) }
        var notes = [memoryNote].compactMap { $0 }
        if jack_is_realtime(client) == 0 {
            notes.append("the JACK server runs without real-time scheduling (jackd --no-realtime): the process thread is not SCHED_FIFO")
        }
        realtimeNote = notes.isEmpty ? nil : notes.joined(separator: "; ")
    }

    /// `out_L` → the first `system:playback_*`, `out_R` → the second (the first again
    /// on a mono system). Returns the ports connected; a failed connection is skipped.
    private func connectToSystem(_ client: OpaquePointer) -> [String] {
        guard let list = jack_get_ports(client, "^system:playback_", cjack_default_audio_type(), UInt(JackPortIsInput.rawValue)) else { return [] }
        defer { jack_free(UnsafeMutableRawPointer(mutating: list)) }
        var targets: [String] = []
        var i = 0
        while targets.count < 2, let p = list[i] { targets.append(String(cString: p)); i += 1 }
        guard let first = targets.first else { return [] }
        var made: [String] = []
        for (port, target) in zip(["out_L", "out_R"], [first, targets.count > 1 ? targets[1] : first]) {
            let r = jack_connect(client, "\(clientName):\(port)", target)
            if r == 0 || r == EEXIST { made.append(target) }
        }
        return made
    }

    private func stopWatcher() {
        notices.wake()
        watcher?.join()
        watcher = nil
    }

    /// Stops rendering (the ports play silence), deactivates and closes the client.
    /// Works after the server went away. Later calls do nothing. - Thread: setup.
    public func stop() {
        counters.set(.running, 0)
        if let client {
            // jack_deactivate returns once the process callback has finished its cycle;
            // after it, nothing renders.
            if started { jack_deactivate(client) }
            jack_client_close(client)
            self.client = nil
        }
        stopWatcher()
        sink.pointee.driver = nil
    }
}

/// The shutdown callback's way out, async-signal-safe: the reason copied into memory
/// allocated at setup, and a POSIX semaphore the watcher thread waits on.
struct JACKNotices: @unchecked Sendable {
    static let reasonCapacity = 256
    let text: UnsafeMutablePointer<CChar>
    let semaphore: UnsafeMutablePointer<sem_t>

    init() {
        text = .allocate(capacity: Self.reasonCapacity)
        text.initialize(repeating: 0, count: Self.reasonCapacity)
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    func deallocate() {
        sem_destroy(semaphore)
        semaphore.deallocate()
        text.deallocate()
    }

    /// Copies `reason` (strncpy: async-signal-safe). - Thread: JACK's shutdown callback.
    func shutdown(reason: UnsafePointer<CChar>?) {
        guard let reason else { return }
        strncpy(text, reason, Self.reasonCapacity - 1)
    }

    /// The reason copied, "" if none. Read after the shutdown flag. - Thread: any.
    var reason: String { String(cString: text) }

    /// sem_post: async-signal-safe. - Thread: any.
    func wake() { sem_post(semaphore) }

    /// - Thread: the watcher.
    func waitForWake() {
        while sem_wait(semaphore) != 0 && errno == EINTR {}  // runtime-exception: JACK's shutdown callback posts it; to a Wakeup once the JACK xrun work here lands
    }
}

/// getenv without Foundation.
enum ProcessInfoLite {
    static func environment(_ name: String) -> String? {
        guard let v = getenv(name), v.pointee != 0 else { return nil }
        return String(cString: v)
    }
}
