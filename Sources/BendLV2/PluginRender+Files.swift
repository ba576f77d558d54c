import BendControl
import CLV2
import Glibc

/// The render thread's side of the file parameters (patch.h): a patch:Set of the scale
/// goes to the host's worker (worker.h: loading is not real-time), whose answer comes
/// back to `workResponse` on this thread and is swapped in there without a lock; a
/// patch:Get is answered with a patch:Set of the file in use.
extension PluginRender {
    /// A patch message in an input event's object body.
    /// - Thread: render.
    @_noLocks
    func takePatch(_ body: UnsafeRawBufferPointer, offset: Int, output: inout AtomSequenceWriter?) {
        guard let message = PatchMessage.read(body, urids: urids) else { return }
        if message.otype == urids.patchGet {
            if message.property == 0 || message.property == urids.scale { sayScale(at: offset, into: &output) }
            return
        }
        guard message.otype == urids.patchSet, message.property == urids.scale, message.valueType == urids.atomPath else { return }
        askWorker(WorkMessage.loadScale, path: PatchMessage.pathBytes(message.value))
    }

    /// Schedules a request for the worker, with the tone note and scale root in force.
    /// - Thread: render.
    @_noLocks
    func askWorker(_ kind: UInt32, path: UnsafeRawBufferPointer) {
        guard let schedule else { state.pointee.refusedWork += 1; return }
        let controls = (control(PluginPort.toneNote, default: 69), control(PluginPort.scaleRoot, default: 0),
                        control(PluginPort.pitchMap, default: 0), control(PluginPort.octaves, default: 2),
                        control(PluginPort.round, default: 0), control(PluginPort.roundRate, default: 80))
        let n = WorkMessage.writeRequest(kind, controls: controls, path: path, into: request)
        // schedule_work: worker.h says it is always safe to call from run().
        let status = _unsafePerformance { schedule.pointee.schedule_work(schedule.pointee.handle, UInt32(n), request) }
        if status != LV2_WORKER_SUCCESS { state.pointee.refusedWork += 1 }
    }

    /// A patch:Set of the scale in use at `offset`, on the output (nothing without one).
    /// - Thread: render.
    @_noLocks
    func sayScale(at offset: Int, into output: inout AtomSequenceWriter?) {
        let n = state.pointee.scalePathCount
        guard n > 0, output != nil else { return }
        let path = UnsafeRawBufferPointer(start: scalePath, count: n)
        let urids = self.urids
        output!.append(frame: offset, type: urids.atomObject, count: PatchMessage.setBytes(pathCount: n)) { at in
            PatchMessage.writeSet(property: urids.scale, path: path, urids: urids, into: at)
        }
    }

    /// The worker's answer (work_response: after run, on this thread): a loaded scale's
    /// keys replace the interpreter's (held notes move to them at the next block's first
    /// frame) and its path becomes the one in use, said on the output next block.
    /// - Thread: render.
    @_noLocks
    func workResponse(_ data: UnsafeRawBufferPointer) {
        guard WorkMessage.kind(data) == WorkMessage.scaleLoaded,
              data.count >= WorkMessage.responseHeader + WorkMessage.tuningBytes else { return }
        let pathCount = Int(data.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        guard data.count >= WorkMessage.responseHeader + WorkMessage.tuningBytes + pathCount, pathCount <= WorkMessage.maximumPath,
              let base = data.baseAddress else { return }
        var tuning = KeyboardTuning()
        withUnsafeMutableBytes(of: &tuning) { $0.copyMemory(from: UnsafeRawBufferPointer(start: base + WorkMessage.responseHeader, count: WorkMessage.tuningBytes)) }
        let gate = self.gate, frame = driver.mixer.position
        interpreter.pointee.setKeys(tuning) { touch in
            gate.apply(touch, atFrame: frame, prepare: TouchGate.pitched) { _, _ in }
        }
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
        let gate = self.gate, frame = driver.mixer.position
        let note = interpreter.pointee.toneNote
        interpreter.pointee.setKeys(KeyboardTuning(toneNote: note)) { touch in
            gate.apply(touch, atFrame: frame, prepare: TouchGate.pitched) { _, _ in }
        }
        state.pointee.scalePathCount = 0
    }
}
