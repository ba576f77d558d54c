// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import CALSA
import Glibc

/// `play --midi-in` with ALSA output: an ALSA sequencer client (`bendsynth`) with a
/// writable port `midi_in` (connect a keyboard with `aconnect`). Events are read on an
/// `EventLoop` ("bendsynth seq"), turned back into MIDI bytes (`snd_midi_event_decode`)
/// and played through BendMIDI's interpreter, stamped by the stream clock when they are
/// read (sequencer events carry no frame; one period of latency, like the other live
/// sources) — through `MIDIInputFeed`, the one path of every live MIDI input into
/// `MIDIInterpreter`. Needs /dev/snd/seq (the snd-seq kernel module).
public final class ALSASeqMIDISource: InputSource, @unchecked Sendable {
    public let name = "ALSA sequencer midi_in"
    public let endsPlay = false
    /// Each MIDI key's pitch (`--tone-note`, `--scale`, `--kbm`).
    public let keys: KeyboardTuning
    /// Where the port's address line goes (set before `start`).
    public var log: @Sendable (String) -> Void = { _ in }
    private var seq: OpaquePointer?
    private var decoder: OpaquePointer?
    private var loop: EventLoop?
    /// The port's address, e.g. "128:0".
    public private(set) var address = ""
    private var portNumber = 0

    /// Opens the sequencer client and its port.
    /// - Throws: `InstrumentError(.runtime)` when /dev/snd/seq is missing or the client
    ///   cannot open.
    public init(keys: KeyboardTuning, clientName: String) throws {
        self.keys = keys
        guard access("/dev/snd/seq", F_OK) == 0 else {
            throw InstrumentError(.runtime, "--midi-in: no ALSA sequencer (/dev/snd/seq is missing: load the snd-seq module, or play MIDI through JACK with -a jack)")
        }
        var s: OpaquePointer?
        var r = snd_seq_open(&s, "default", SND_SEQ_OPEN_INPUT, SND_SEQ_NONBLOCK)
        guard r >= 0, let s else { throw InstrumentError(.runtime, "--midi-in: snd_seq_open(default): \(Self.describe(r))") }
        seq = s
        snd_seq_set_client_name(s, clientName)
        let caps = UInt32(SND_SEQ_PORT_CAP_WRITE | SND_SEQ_PORT_CAP_SUBS_WRITE)
        let type = UInt32(SND_SEQ_PORT_TYPE_MIDI_GENERIC | SND_SEQ_PORT_TYPE_APPLICATION)
        let port = snd_seq_create_simple_port(s, "midi_in", caps, type)
        var d: OpaquePointer?
        r = snd_midi_event_new(256, &d)
        guard port >= 0, r >= 0 else {
            snd_seq_close(s)
            seq = nil
            throw InstrumentError(.runtime, "--midi-in: \(port < 0 ? "snd_seq_create_simple_port" : "snd_midi_event_new"): \(Self.describe(port < 0 ? port : r))")
        }
        decoder = d
        snd_midi_event_no_status(d, 1)  // every message with its status byte: the parser needs no running status
        address = "\(snd_seq_client_id(s)):\(port)"
        portNumber = Int(port)
    }

    deinit {
        stop()
        if let decoder { snd_midi_event_free(decoder) }
        if let seq { snd_seq_close(seq) }
    }

    /// alsa-lib's text for an error code (`snd_strerror`).
    static func describe(_ code: Int32) -> String { String(cString: snd_strerror(code)) }

    public func start(port: ControlPort, context: InputContext, finished: @escaping @Sendable () -> Void) throws {
        guard let seq, let decoder else { return }
        let count = snd_seq_poll_descriptors_count(seq, Int16(POLLIN))
        var fds = [pollfd](repeating: pollfd(), count: Int(max(count, 1)))
        let n = snd_seq_poll_descriptors(seq, &fds, UInt32(fds.count), Int16(POLLIN))
        let loop: EventLoop
        do { loop = try EventLoop(name: "bendsynth seq") } catch {
            throw InstrumentError(.runtime, "--midi-in: cannot start its event loop: \(error)")
        }
        let feed = MIDIInputFeed(port: port, keys: keys)
        feed.panic = context.panic
        // The system announce port says who subscribes, unsubscribes or exits: when the
        // last sender goes, its notes end (`MIDISenderWatch`).
        let announced = snd_seq_connect_from(seq, Int32(portNumber), Int32(SND_SEQ_CLIENT_SYSTEM), SND_SEQ_PORT_SYSTEM_ANNOUNCE)
        if announced < 0 { log("note: --midi-in: no announcements (\(Self.describe(announced))): notes of a sender that goes are not ended") }
        let reader = SeqReader(seq: seq, decoder: decoder, feed: feed, ours: MIDISenderWatch.Sender(client: Int(snd_seq_client_id(seq)), port: portNumber),
                               log: log)
        for fd in fds.prefix(Int(n)) {
            _ = loop.add(fd: fd.fd) { _ in reader.drain() }
        }
        do { try loop.start() } catch { throw InstrumentError(.runtime, "--midi-in: cannot start its event loop: \(error)") }
        self.loop = loop
        log("ALSA sequencer port \(address) 'midi_in' (connect a keyboard with aconnect)")
    }

    public func stop() {
        loop?.stop()
        loop = nil
    }
}

/// The sequencer reader's state, used on the event loop's thread only.
private final class SeqReader: @unchecked Sendable {
    let seq: OpaquePointer
    let decoder: OpaquePointer
    let feed: MIDIInputFeed
    let ours: MIDISenderWatch.Sender
    let log: @Sendable (String) -> Void

    init(seq: OpaquePointer, decoder: OpaquePointer, feed: MIDIInputFeed, ours: MIDISenderWatch.Sender, log: @escaping @Sendable (String) -> Void) {
        self.seq = seq
        self.decoder = decoder
        self.feed = feed
        self.ours = ours
        self.log = log
    }

    /// A sequencer event that announces a subscription or a client or port gone, as
    /// `MIDISenderWatch` reads it; nil for any other event.
    static func announcement(_ e: snd_seq_event_t) -> MIDISenderWatch.Announcement? {
        func sender(_ a: snd_seq_addr_t) -> MIDISenderWatch.Sender { MIDISenderWatch.Sender(client: Int(a.client), port: Int(a.port)) }
        switch UInt32(e.type) {
        case UInt32(SND_SEQ_EVENT_PORT_SUBSCRIBED.rawValue):
            return .portSubscribed(sender: sender(e.data.connect.sender), dest: sender(e.data.connect.dest))
        case UInt32(SND_SEQ_EVENT_PORT_UNSUBSCRIBED.rawValue):
            return .portUnsubscribed(sender: sender(e.data.connect.sender), dest: sender(e.data.connect.dest))
        case UInt32(SND_SEQ_EVENT_CLIENT_EXIT.rawValue): return .clientExit(sender(e.data.addr))
        case UInt32(SND_SEQ_EVENT_PORT_EXIT.rawValue): return .portExit(sender(e.data.addr))
        default: return nil
        }
    }

    /// Reads every pending event (non-blocking) and plays its bytes.
    func drain() {
        var event: UnsafeMutablePointer<snd_seq_event_t>?
        // Room for a SysEx event's bytes (a tuning message is 8…33; the decoder refuses
        // an event larger than the buffer, and the interpreter skips longer SysEx anyway).
        var bytes = [UInt8](repeating: 0, count: 4096)
        while snd_seq_event_input(seq, &event) >= 0, let e = event {
            if let a = Self.announcement(e.pointee) {
                if let what = MIDISenderWatch.event(of: a, ours: ours), let n = feed.senders(what) {
                    log("note: ALSA sequencer midi_in: its last sender went; \(n) note\(n == 1 ? "" : "s") ended")
                }
                continue
            }
            let n = bytes.withUnsafeMutableBufferPointer { snd_midi_event_decode(decoder, $0.baseAddress, $0.count, e) }
            guard n > 0 else { continue }
            feed.receive(bytes.prefix(Int(n)))
        }
    }
}
