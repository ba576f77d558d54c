// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import CLV2
import Glibc

/// The render thread's side of the file parameters (patch.h): a patch:Set of the tone or
/// the scale goes to the host's worker (worker.h: loading is not real-time). A tone the
/// worker loaded goes to the mixer without a lock (`Mixer.replace`: new touches play it,
/// sounding voices keep theirs); a scale's keys come back to `workResponse` on this
/// thread and are swapped in there. Either way its path comes back and is said on the
/// output; a patch:Get is answered with a patch:Set of each file in use. Tones the mixer
/// gives back are freed by the worker, asked from here (`collectRetiredTones`).
extension PluginRender {
    /// A patch message in an input event's object body.
    /// - Thread: render.
    @_noLocks
    func takePatch(_ body: UnsafeRawBufferPointer, offset: Int, output: inout AtomSequenceWriter?) {
        guard let message = PatchMessage.read(body, urids: urids) else { return }
        if message.otype == urids.patchGet {
            if message.property == 0 || message.property == urids.tone { sayTone(at: offset, into: &output) }
            if message.property == 0 || message.property == urids.scale { sayScale(at: offset, into: &output) }
            return
        }
        guard message.otype == urids.patchSet, message.valueType == urids.atomPath else { return }
        if message.property == urids.tone {
            askWorker(WorkMessage.loadTone, path: PatchMessage.pathBytes(message.value))
        } else if message.property == urids.scale {
            askWorker(WorkMessage.loadScale, path: PatchMessage.pathBytes(message.value))
        }
    }

    /// Schedules a request for the worker, with the tone note and scale root in force.
    /// Returns whether the host took it.
    /// - Thread: render.
    @_noLocks @discardableResult
    func askWorker(_ kind: UInt32, path: UnsafeRawBufferPointer) -> Bool {
        guard let schedule else { state.pointee.refusedWork += 1; return false }
        let controls = (control(PluginPort.toneNote, default: 69), control(PluginPort.scaleRoot, default: 0),
                        control(PluginPort.pitchMap, default: 0), control(PluginPort.octaves, default: 2),
                        control(PluginPort.round, default: 0), control(PluginPort.roundRate, default: 80))
        let n = WorkMessage.writeRequest(kind, controls: controls, path: path, into: request)
        // schedule_work: worker.h says it is always safe to call from run().
        let status = _unsafePerformance { schedule.pointee.schedule_work(schedule.pointee.handle, UInt32(n), request) }
        if status != LV2_WORKER_SUCCESS { state.pointee.refusedWork += 1 }
        return status == LV2_WORKER_SUCCESS
    }

    /// Asks the worker to free the tones the mixer gave back, once at a time (after the
    /// block: voices end while it renders). Without a worker they wait for the next
    /// state restore or the cleanup.
    /// - Thread: render.
    @_noLocks
    func collectRetiredTones() {
        guard schedule != nil, !state.pointee.collectAsked, host.hasRetired else { return }
        state.pointee.collectAsked = askWorker(WorkMessage.collectTones, path: UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// A patch:Set of the scale in use at `offset`, on the output (nothing without one).
    /// - Thread: render.
    @_noLocks
    func sayScale(at offset: Int, into output: inout AtomSequenceWriter?) {
        sayPath(urids.scale, UnsafeRawBufferPointer(start: scalePath, count: state.pointee.scalePathCount), at: offset, into: &output)
    }

    /// A patch:Set of the tone in use at `offset`, on the output.
    /// - Thread: render.
    @_noLocks
    func sayTone(at offset: Int, into output: inout AtomSequenceWriter?) {
        sayPath(urids.tone, UnsafeRawBufferPointer(start: tonePath, count: state.pointee.tonePathCount), at: offset, into: &output)
    }

    /// A patch:Set of `property` to `path` at `offset` (nothing for an empty path).
    /// - Thread: render.
    @_noLocks
    func sayPath(_ property: UInt32, _ path: UnsafeRawBufferPointer, at offset: Int, into output: inout AtomSequenceWriter?) {
        guard path.count > 0, output != nil else { return }
        let urids = self.urids
        output!.append(frame: offset, type: urids.atomObject, count: PatchMessage.setBytes(pathCount: path.count)) { at in
            PatchMessage.writeSet(property: property, path: path, urids: urids, into: at)
        }
    }

    /// The worker's answer (work_response: after run, on this thread): a loaded scale's
    /// keys replace the interpreter's (held notes move to them at the next block's first
    /// frame) and its path becomes the one in use, said on the output next block; a
    /// loaded tone's path likewise (the mixer has the sound already); the retired tones
    /// freed.
    /// - Thread: render.
    @_noLocks
    func workResponse(_ data: UnsafeRawBufferPointer) {
        switch WorkMessage.kind(data) {
        case WorkMessage.toneLoaded: toneLoaded(data)
        case WorkMessage.tonesCollected: state.pointee.collectAsked = false
        case WorkMessage.scaleLoaded: scaleLoaded(data)
        default: break
        }
    }

    /// A `toneLoaded` answer: its path is the tone's in use, said on the output next block.
    /// - Thread: render.
    @_noLocks
    func toneLoaded(_ data: UnsafeRawBufferPointer) {
        guard data.count >= WorkMessage.responseHeader, let base = data.baseAddress else { return }
        let pathCount = Int(data.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        guard pathCount <= WorkMessage.maximumPath, data.count >= WorkMessage.responseHeader + pathCount else { return }
        tonePath.copyMemory(from: base + WorkMessage.responseHeader, byteCount: pathCount)
        state.pointee.tonePathCount = pathCount
        state.pointee.notifyTone = true
    }

    /// A `scaleLoaded` answer. - Thread: render.
    @_noLocks
    func scaleLoaded(_ data: UnsafeRawBufferPointer) {
        guard data.count >= WorkMessage.responseHeader + WorkMessage.tuningBytes else { return }
        let pathCount = Int(data.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        guard data.count >= WorkMessage.responseHeader + WorkMessage.tuningBytes + pathCount, pathCount <= WorkMessage.maximumPath,
              let base = data.baseAddress else { return }
        var tuning = KeyboardTuning()
        withUnsafeMutableBytes(of: &tuning) { $0.copyMemory(from: UnsafeRawBufferPointer(start: base + WorkMessage.responseHeader, count: WorkMessage.tuningBytes)) }
        host.setKeys(tuning, atFrame: host.position)
        // memcmp (libc): no lock, no allocation.
        let newPath = base + WorkMessage.responseHeader + WorkMessage.tuningBytes, oldPath = UnsafeRawPointer(scalePath)
        let changed = pathCount != state.pointee.scalePathCount || _unsafePerformance { memcmp(oldPath, newPath, pathCount) } != 0
        scalePath.copyMemory(from: base + WorkMessage.responseHeader + WorkMessage.tuningBytes, byteCount: pathCount)
        state.pointee.scalePathCount = pathCount
        state.pointee.notifyScale = true
        // The pad draws the scale's steps: served again with it.
        if changed && state.pointee.controls.web > 0.5 {
            askWorker(WorkMessage.webStart, path: UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }
}

extension PluginRender {
    /// Back to 12-TET and no scale file (a restored state without one).
    /// - Thread: setup (state restore, never concurrent with run).
    func resetKeys() {
        host.setKeys(KeyboardTuning(toneNote: host.toneNote), atFrame: host.position)
        state.pointee.scalePathCount = 0
    }

    /// The tone in use is `path`, not said on the output (the default tone at instantiate).
    /// - Thread: setup (never concurrent with run).
    func setTonePath(_ path: String) {
        let bytes = Array(path.utf8.prefix(WorkMessage.maximumPath))
        bytes.withUnsafeBytes { if let b = $0.baseAddress { tonePath.copyMemory(from: b, byteCount: $0.count) } }
        state.pointee.tonePathCount = bytes.count
    }
}
