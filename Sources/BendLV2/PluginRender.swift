// SPDX-License-Identifier: GPL-3.0-or-later
import BendInstrument
import CLV2

/// The render thread's half of the plugin: what `connect_port` and `run` touch. Plain
/// values and pointers made in `instantiate`, no class reference, so `run` does no
/// reference counting, takes no lock and allocates nothing (`@_noLocks`, checked in
/// release builds).
///
/// `run` is the render thread (LV2's Audio threading class). Each block: the control
/// ports go to the core's mix and its host MIDI port (`PluginControls`), then the input
/// sequence's MIDI goes to the core's host port (`HostRender.midi`: the same
/// interpreter as `--midi-in`, the same gate as every port), each event stamped with the
/// stream frame of its offset in this block, then the core renders the block
/// (`HostRender.render`: the period step of the ALSA and JACK sinks, in steps of the
/// mixer's period bound) straight into the host's two output buffers. The mixer applies
/// each event at its frame: sample-accurate within the block.
struct PluginRender {
    /// The host's port buffers by `PluginPort` index (`connect_port`); nil until
    /// connected. Control ports point at one Float each. Owner: render.
    let ports: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// The instrument core's face on this thread: the mix, the host's MIDI in, the pad's
    /// MPE out, the block step. Owner: render (the core is the plugin's).
    let host: HostRender
    let urids: PluginURIDs
    /// The control values last applied, and other scalars. Owner: render.
    let state: UnsafeMutablePointer<RenderState>
    /// The host's worker (worker.h), or nil: then files are not loaded while running.
    let schedule: UnsafeMutablePointer<LV2_Worker_Schedule>?
    /// A worker request being written (`WorkMessage`). Owner: render.
    let request: UnsafeMutableRawPointer
    /// The scale file in use (its path's bytes, for patch:Get and the notification after
    /// a load): `WorkMessage.maximumPath` bytes, `state.scalePathCount` used. Owner: render.
    let scalePath: UnsafeMutableRawPointer
    /// The tone in use (its path's bytes, as `scalePath`; the bundle's default tone until
    /// another loads), `state.tonePathCount` used. Owner: render.
    let tonePath: UnsafeMutableRawPointer

    struct RenderState {
        var controls = PluginControls()
        /// MIDI events that were not one message (counted, never stall the block).
        var strayEvents = 0
        /// Output events the host's buffer had no room for.
        var droppedOutput = 0
        /// Bytes of `scalePath`; 0: no scale (12-TET).
        var scalePathCount = 0
        /// Say the scale in use on the output (patch:Set) in the next block.
        var notifyScale = false
        /// Bytes of `tonePath`.
        var tonePathCount = 0
        /// Say the tone in use on the output in the next block.
        var notifyTone = false
        /// The worker was asked to free the tones the mixer gave back and has not answered.
        var collectAsked = false
        /// Worker requests the host refused (its queue full).
        var refusedWork = 0
        /// The host's transport as its time:Position messages last said (`TimePosition`).
        var position = TimePosition()
    }

    /// - Thread: setup (instantiate).
    init(host: HostRender, urids: PluginURIDs, schedule: UnsafeMutablePointer<LV2_Worker_Schedule>?) {
        self.schedule = schedule
        self.host = host
        request = .allocate(byteCount: WorkMessage.requestHeader + WorkMessage.maximumPath, alignment: 8)
        scalePath = .allocate(byteCount: WorkMessage.maximumPath, alignment: 8)
        tonePath = .allocate(byteCount: WorkMessage.maximumPath, alignment: 8)
        ports = .allocate(capacity: PluginPort.count)
        ports.initialize(repeating: nil, count: PluginPort.count)
        self.urids = urids
        state = .allocate(capacity: 1)
        state.initialize(to: RenderState())
    }

    /// - Thread: setup (cleanup).
    func deallocate() {
        ports.deallocate()
        state.deallocate()
        request.deallocate()
        scalePath.deallocate()
        tonePath.deallocate()
    }

    /// `connect_port`: the host's buffer for `port` (it may change between `run` calls).
    /// - Thread: render (or setup, before `activate`).
    @_noLocks
    func connect(port: UInt32, to data: UnsafeMutableRawPointer?) {
        guard Int(port) < PluginPort.count else { return }
        ports[Int(port)] = data
    }

    /// The value of control port `index` (its default when not connected).
    @_noLocks @inline(__always)
    func control(_ index: Int, default value: Float) -> Float {
        ports[index].map { $0.assumingMemoryBound(to: Float.self).pointee } ?? value
    }

    /// `run`: `frames` frames (any count the host gives, 0 included) into the two outputs.
    /// - Thread: render.
    @_noLocks
    func run(frames: Int) {
        guard let l = ports[PluginPort.left], let r = ports[PluginPort.right] else { return }
        let left = l.assumingMemoryBound(to: Float.self)
        let right = r.assumingMemoryBound(to: Float.self)
        if let latency = ports[PluginPort.latency] {
            latency.assumingMemoryBound(to: Float.self).pointee = Float(host.latencyFrames)
        }
        let position = host.position
        applyControls(atFrame: position)
        // The output sequence (MPE of the phone's touches, the files in use); a host that
        // did not connect it gets nothing written.
        var output = ports[PluginPort.eventsOut].map { AtomSequenceWriter($0, sequenceType: urids.atomSequence) }
        if state.pointee.notifyTone {
            state.pointee.notifyTone = false
            sayTone(at: 0, into: &output)
        }
        if state.pointee.notifyScale {
            state.pointee.notifyScale = false
            sayScale(at: 0, into: &output)
        }
        if let input = ports[PluginPort.eventsIn] {
            AtomEvents(start: UnsafeRawPointer(input)).forEach { event in
                let offset = min(max(Int(event.frame), 0), max(frames - 1, 0))
                // The pad's MPE due up to here first: the output stays in time order.
                sayMPE(before: position &+ UInt64(offset) &+ 1, blockStart: position, into: &output)
                take(event, offset: offset, atFrame: position &+ UInt64(offset), output: &output)
            }
        }
        sayMPE(before: position &+ UInt64(frames), blockStart: position, into: &output)
        if let output { state.pointee.droppedOutput += output.dropped }
        host.render(frames: frames, left: left, right: right)
        collectRetiredTones()
    }

    /// The pad's MPE packets due before stream frame `end`, at their offsets in the block
    /// that starts at `blockStart` (a late one at offset 0).
    /// - Thread: render.
    @_noLocks
    func sayMPE(before end: UInt64, blockStart: UInt64, into output: inout AtomSequenceWriter?) {
        let type = urids.midiEvent
        while let p = host.nextOutgoing(before: end) {
            guard output != nil else { continue }
            let offset = p.frame > blockStart ? Int(p.frame &- blockStart) : 0
            output!.append(frame: offset, type: type, count: Int(p.count)) { at in
                at.storeBytes(of: p.byte0, toByteOffset: 0, as: UInt8.self)
                if p.count > 1 { at.storeBytes(of: p.byte1, toByteOffset: 1, as: UInt8.self) }
                if p.count > 2 { at.storeBytes(of: p.byte2, toByteOffset: 2, as: UInt8.self) }
            }
        }
    }

    /// One input event at `offset` in the block (stream frame `frame`): MIDI through the
    /// interpreter and the gate; the host's transport (time:Position); a patch:Set or
    /// patch:Get of a file parameter.
    /// - Thread: render.
    @_noLocks
    func take(_ event: AtomEvents.Event, offset: Int, atFrame frame: UInt64, output: inout AtomSequenceWriter?) {
        if event.type == urids.atomObject || event.type == urids.atomBlank {
            if AtomObject.otype(event.body) == urids.timePosition {
                // The host's transport: the tempo clock from this frame (the arpeggiator's
                // grid moves here, the delay's note values at the next period).
                if state.pointee.position.take(event.body, urids: urids) {
                    let p = state.pointee.position
                    host.publishTransport(atFrame: frame, beat: p.beat, bpm: p.bpm, beatsPerBar: p.beatsPerBar, beatUnit: p.beatUnit, speed: p.speed)
                }
                return
            }
            takePatch(event.body, offset: offset, output: &output)
            return
        }
        guard event.type == urids.midiEvent else { return }
        if !host.midi(event.body, atFrame: frame) { state.pointee.strayEvents += 1 }
    }
}
