// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import CLV2
import Glibc

/// The state interface (state.h): what a DAW saves in its session and restores when it
/// reopens it — the tone's path (a tone file or an SFZ instrument) with the tone note it
/// was loaded at, the scale file's path with the tone note and scale root its keys
/// were made for (atom:Path mapped by state:mapPath, so the host may copy or relink the
/// files; atom:Float), and the web pad's port (atom:Int), taken again when free. The control ports (gain, limiter, interpolation, bend
/// range, tone note, pad settings, web) are the host's to save and restore, as for every
/// plugin (lilv and the DAWs keep port values beside the plugin's state).
enum PluginState {
    nonisolated(unsafe) static let interface: UnsafeMutablePointer<LV2_State_Interface> = {
        let i = UnsafeMutablePointer<LV2_State_Interface>.allocate(capacity: 1)
        i.initialize(to: LV2_State_Interface(
            save: { handle, store, storeHandle, _, features in
                guard let store else { return LV2_STATE_ERR_UNKNOWN }
                return LV2Plugin.from(handle).save(features: LV2Features(features)) { key, type, bytes in
                    _ = store(storeHandle, key, bytes.baseAddress, bytes.count, type, UInt32(LV2_STATE_IS_POD.rawValue | LV2_STATE_IS_PORTABLE.rawValue))
                }
            },
            restore: { handle, retrieve, retrieveHandle, _, features in
                guard let retrieve else { return LV2_STATE_ERR_UNKNOWN }
                return LV2Plugin.from(handle).restore(features: LV2Features(features)) { key in
                    var size = 0, type: UInt32 = 0, flags: UInt32 = 0
                    guard let value = retrieve(retrieveHandle, key, &size, &type, &flags), size > 0 else { return nil }
                    return (type, UnsafeRawBufferPointer(start: value, count: size))
                }
            }))
        return i
    }()
}

/// The features a state call was given (state.h: mapPath, freePath).
struct LV2Features {
    var mapPath: UnsafeMutablePointer<LV2_State_Map_Path>?
    var freePath: UnsafeMutablePointer<LV2_State_Free_Path>?

    init(_ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?) {
        var i = 0
        while let features, let f = features[i] {
            switch String(cString: f.pointee.URI) {
            case LV2URI.stateMapPath: mapPath = f.pointee.data?.assumingMemoryBound(to: LV2_State_Map_Path.self)
            case LV2URI.stateFreePath: freePath = f.pointee.data?.assumingMemoryBound(to: LV2_State_Free_Path.self)
            default: break
            }
            i += 1
        }
    }

    /// A path the host handed out (abstract or absolute): freed its way.
    func free(_ p: UnsafeMutablePointer<CChar>) {
        if let freePath { freePath.pointee.free_path(freePath.pointee.handle, p) } else { Glibc.free(p) }
    }

    /// `path` as the host wants it kept in state (state:mapPath's abstract path), or as it is.
    func abstract(_ path: String) -> String {
        guard let mapPath, let p = mapPath.pointee.abstract_path(mapPath.pointee.handle, path) else { return path }
        defer { free(p) }
        return String(cString: p)
    }

    /// A path from state as a file's path (state:mapPath's absolute path), or as it is.
    func absolute(_ path: String) -> String {
        guard let mapPath, let p = mapPath.pointee.absolute_path(mapPath.pointee.handle, path) else { return path }
        defer { free(p) }
        return String(cString: p)
    }
}

extension LV2Plugin {
    /// state:save: the tone's path (when one was chosen; without it, the bundle's default
    /// tone) and the tone note it was loaded at; the scale's path, and the tone note and
    /// scale root its keys are made for — the control ports' values now, which the host
    /// saves too. (May come while run() runs: the files are the setup side's copy, under
    /// its lock; a port's value is one Float the host wrote.)
    func save(features: LV2Features, store: (LV2_URID, LV2_URID, UnsafeRawBufferPointer) -> Void) -> LV2_State_Status {
        let current = files.withLock { $0 }
        let pathType = host.urid(LV2URI.atomPath), floatType = host.urid(LV2URI.atomFloat)
        func storePath(_ key: String, _ path: String) {
            features.abstract(path).withCString { store(host.urid(key), pathType, UnsafeRawBufferPointer(start: $0, count: strlen($0) + 1)) }
        }
        func storeFloat(_ key: String, _ value: Float) {
            var v = value
            withUnsafeBytes(of: &v) { store(host.urid(key), floatType, $0) }
        }
        if let path = current.tonePath {
            storePath(LV2URI.toneParameter, path)
            storeFloat(LV2URI.toneToneNote, Float(current.toneNote))
        } else if let missing = current.missingTone {
            storePath(LV2URI.toneParameter, missing.path)
            storeFloat(LV2URI.toneToneNote, Float(missing.toneNote))
        }
        let port = webPad.padPort.load(ordering: .relaxed)
        if port != 0 {
            var value = Int32(port)
            withUnsafeBytes(of: &value) { store(host.urid(LV2URI.webPort), host.urid(LV2URI.atomInt), $0) }
        }
        if let path = current.scalePath {
            storePath(LV2URI.scaleParameter, path)
            storeFloat(LV2URI.scaleToneNote, render.pointee.control(PluginPort.toneNote, default: 69))
            storeFloat(LV2URI.scaleRootHz, render.pointee.control(PluginPort.scaleRoot, default: 0))
        }
        return LV2_STATE_SUCCESS
    }

    /// state:restore (never while run() runs: LV2's Instantiation class): the tone, then
    /// the scale.
    func restore(features: LV2Features, retrieve: (LV2_URID) -> (type: LV2_URID, value: UnsafeRawBufferPointer)?) -> LV2_State_Status {
        if let (type, bytes) = retrieve(host.urid(LV2URI.webPort)), type == host.urid(LV2URI.atomInt), bytes.count == 4 {
            let port = bytes.loadUnaligned(as: Int32.self)
            webPad.padPort.store(UInt16(clamping: max(port, 0)), ordering: .relaxed)
        }
        restoreTone(features: features, retrieve: retrieve)
        restoreScale(features: features, retrieve: retrieve)
        return LV2_STATE_SUCCESS
    }

    /// The tone file is loaded here (at the tone note saved with it: an SFZ instrument's
    /// keys where they were) and handed to the mixer as the worker's would be, its path
    /// answered to the render side; without one in the state, the bundle's default tone
    /// (loaded again only when another plays). A file that does not load is logged and
    /// the sound in use plays on.
    func restoreTone(features: LV2Features, retrieve: (LV2_URID) -> (type: LV2_URID, value: UnsafeRawBufferPointer)?) {
        let pathType = host.urid(LV2URI.atomPath), floatType = host.urid(LV2URI.atomFloat)
        guard let (type, bytes) = retrieve(host.urid(LV2URI.toneParameter)), type == pathType else {
            if files.withLock({ $0.tonePath }) != nil, loadTone(nil, toneNote: 69) { render.pointee.workResponse(toneResponse(core.tone.path)) }
            return
        }
        let path = features.absolute(String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
        var toneNote = Double(render.pointee.control(PluginPort.toneNote, default: 69))
        if let (type, bytes) = retrieve(host.urid(LV2URI.toneToneNote)), type == floatType, bytes.count == 4 {
            toneNote = Double(bytes.loadUnaligned(as: Float.self))
        }
        if !loadTone(path, toneNote: toneNote) {
            files.withLock { $0.missingTone = (path, toneNote) }
            log.warning("tone '\(path)': kept in the session's state until another tone is chosen")
        }
        render.pointee.workResponse(toneResponse(tonePathInUse))
    }

    /// The scale file is read here and its keys swapped in as the worker's answer would
    /// be; without one in the state, 12-TET. A file that does not load is logged and the
    /// tuning in use plays on.
    ///
    /// The keys are made for the tone note and scale root saved with the scale, not the
    /// control ports' values now: lilv (`lilv_state_restore`) calls this before it sets
    /// the ports, so the ports still hold the values from before the restore. The first
    /// block after it then plays in tune with the ports the host restores; a state
    /// without those values (saved before they were) takes the ports'.
    func restoreScale(features: LV2Features, retrieve: (LV2_URID) -> (type: LV2_URID, value: UnsafeRawBufferPointer)?) {
        let pathType = host.urid(LV2URI.atomPath), floatType = host.urid(LV2URI.atomFloat)
        let render = self.render.pointee
        func saved(_ key: String, port: Int, default value: Float) -> Float {
            guard let (type, bytes) = retrieve(host.urid(key)), type == floatType, bytes.count == 4 else { return render.control(port, default: value) }
            return bytes.loadUnaligned(as: Float.self)
        }
        guard let (type, bytes) = retrieve(host.urid(LV2URI.scaleParameter)), type == pathType else {
            files.withLock {
                $0.scalePath = nil
                $0.scale = nil
                $0.scaleKeys = nil
            }
            render.resetKeys()
            return
        }
        let path = features.absolute(String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
        let toneNote = saved(LV2URI.scaleToneNote, port: PluginPort.toneNote, default: 69)
        let scaleRoot = saved(LV2URI.scaleRootHz, port: PluginPort.scaleRoot, default: 0)
        do {
            let (scale, scaleKeys) = try AbletonScale.scaleAndKeys(nameOrFile: path)
            files.withLock {
                $0.scalePath = path
                $0.scale = scale
                $0.scaleKeys = scaleKeys
            }
            render.workResponse(keys(scale, keyboard: scaleKeys, toneNote: Double(toneNote), scaleRoot: Double(scaleRoot), path: path))
            // What the keys are made for: the next block retunes only when the ports differ.
            render.state.pointee.controls.toneNote = toneNote
            render.state.pointee.controls.scaleRoot = scaleRoot
        } catch {
            log.error("\(error); the tuning in use plays on")
        }
    }
}
