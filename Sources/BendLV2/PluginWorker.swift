// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import CLV2

/// The worker interface (worker.h): the host calls `work` on a thread of its own (never
/// two at once) with what run() scheduled, and `work_response` on the audio thread after
/// run() with what work answered. Here a tone is loaded and handed to the mixer, the
/// tones the mixer gave back are freed, a scale file is read and its keys made; the render
/// side swaps the keys in and says the files in use.
enum PluginWorker {
    nonisolated(unsafe) static let interface: UnsafeMutablePointer<LV2_Worker_Interface> = {
        let i = UnsafeMutablePointer<LV2_Worker_Interface>.allocate(capacity: 1)
        i.initialize(to: LV2_Worker_Interface(
            work: { handle, respond, respondHandle, size, data in
                guard let data else { return LV2_WORKER_ERR_UNKNOWN }
                LV2Plugin.from(handle).work(UnsafeRawBufferPointer(start: data, count: Int(size))) { bytes in
                    _ = respond?(respondHandle, UInt32(bytes.count), bytes.baseAddress)
                }
                return LV2_WORKER_SUCCESS
            },
            work_response: { handle, size, data in
                guard let data else { return LV2_WORKER_ERR_UNKNOWN }
                LV2Plugin.render(handle).pointee.workResponse(UnsafeRawBufferPointer(start: data, count: Int(size)))
                return LV2_WORKER_SUCCESS
            },
            end_run: nil))
        return i
    }()
}

/// The files the instance uses (the setup side's copy, for state:save and the worker):
/// the tone chosen last (nil: the bundle's default) and the tone note it was loaded at,
/// the scale loaded last, its path and (an Ableton `.ascl`) its own keys. - Thread: any,
/// under its lock.
struct PluginFiles: Sendable {
    var tonePath: String?
    /// A tone a restored state named that did not load (a drive not mounted, a link
    /// gone), with its tone note: saved again in its place until another tone is chosen,
    /// so one save while it is missing does not lose it.
    var missingTone: (path: String, toneNote: Double)?
    var toneNote = 69.0
    var scalePath: String?
    var scale: Scale?
    /// An `.ascl`'s keys and reference pitch (`AbletonScale.keyboardMap`), played while the
    /// scale root port is 0; nil for a `.scl`.
    var scaleKeys: KeyboardMap?
}

extension LV2Plugin {
    /// A request from run() (`WorkMessage`), on the host's worker thread: load a tone and
    /// hand it to the mixer, answering its path; free the tones the mixer gave back; load a
    /// scale and answer its keys, or make them again for a new tone note or root. A file
    /// that does not load is logged (file and reason) and the sound or tuning in use plays
    /// on; a tone is answered either way with the tone in use (patch:Set on events_out).
    /// - Thread: the host's worker (non-real-time, one call at a time).
    func work(_ data: UnsafeRawBufferPointer, respond: (UnsafeRawBufferPointer) -> Void) {
        guard let request = WorkRequest(data) else { return }
        let pad = request.pad
        switch request.kind {
        case WorkMessage.loadTone:
            // Answered either way: the tone now playing (the new one, or the one kept).
            _ = loadTone(request.path, toneNote: pad.toneNote)
            respond(toneResponse(tonePathInUse))
        case WorkMessage.collectTones:
            core.freeRetired()
            respond(collectedResponse())
        case WorkMessage.loadScale:
            do {
                let (scale, scaleKeys) = try AbletonScale.scaleAndKeys(nameOrFile: request.path)
                files.withLock {
                    $0.scalePath = request.path
                    $0.scale = scale
                    $0.scaleKeys = scaleKeys
                }
                log.note("scale '\(request.path)': \(scale.degrees.count) steps")
                respond(keys(scale, keyboard: scaleKeys, toneNote: pad.toneNote, scaleRoot: pad.scaleRoot, path: request.path))
            } catch {
                log.error("\(error); the tuning in use plays on")
            }
        case WorkMessage.retune:
            let current = files.withLock { $0 }
            guard let scale = current.scale, let scalePath = current.scalePath else { return }
            respond(keys(scale, keyboard: current.scaleKeys, toneNote: pad.toneNote, scaleRoot: pad.scaleRoot, path: scalePath))
        case WorkMessage.webStart:
            let current = files.withLock { $0 }
            webPad.start(pad, scale: current.scale, keys: current.scaleKeys)
        case WorkMessage.webStop:
            webPad.stop()
        default:
            break
        }
    }

    /// The `scaleLoaded` answer: the keys of `scale` at the tone note and root (0: the
    /// tone's pitch, or an `.ascl`'s own keys and reference pitch, `keyboard`), and the path.
    func keys(_ scale: Scale, keyboard: KeyboardMap?, toneNote: Double, scaleRoot: Double, path: String) -> UnsafeRawBufferPointer {
        let rootHz = scaleRoot > 0 ? scaleRoot : KeyboardTuning.hz(ofNote: toneNote)
        var tuning = if let keyboard, scaleRoot <= 0 {
            KeyboardTuning(toneNote: toneNote, scale: scale, keyboard: keyboard)
        } else {
            KeyboardTuning(toneNote: toneNote, scale: scale, rootHz: rootHz)
        }
        let pathBytes = Array(path.utf8.prefix(WorkMessage.maximumPath))
        let count = WorkMessage.responseHeader + WorkMessage.tuningBytes + pathBytes.count
        response.storeBytes(of: WorkMessage.scaleLoaded, toByteOffset: 0, as: UInt32.self)
        response.storeBytes(of: UInt32(pathBytes.count), toByteOffset: 4, as: UInt32.self)
        withUnsafeBytes(of: &tuning) { (response + WorkMessage.responseHeader).copyMemory(from: $0.baseAddress!, byteCount: WorkMessage.tuningBytes) }
        pathBytes.withUnsafeBytes { (response + WorkMessage.responseHeader + WorkMessage.tuningBytes).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return UnsafeRawBufferPointer(start: response, count: count)
    }
}
