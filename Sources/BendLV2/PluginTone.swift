// SPDX-License-Identifier: GPL-3.0-or-later
import BendInstrument
import Foundation

/// The tone parameter's setup side (`urn:bendsynth:lv2:tone`, an atom:Path): a tone file
/// or an SFZ instrument read on the host's worker (or in state restore), handed to the
/// mixer without a lock (`InstrumentCore.play`: new touches play it, sounding voices
/// keep theirs to their end), its path answered to the render thread; the tones the mixer
/// gives back freed here. A file that does not load is logged (its name and the reason)
/// and the sound in use plays on.
///
/// The tone note: a tone file plays at the tone_note port's note (ratio 1) whatever root
/// it declares — its own root is logged as a hint when it differs. An SFZ instrument is
/// placed with ratio 1 at the port's note when it loads (`SoundSettings.toneNote`), so
/// its keys sound at their own pitch; the note it was loaded at is saved with it.
/// - Thread: the host's worker or its state restore (never at once, never the render
///   thread).
extension LV2Plugin {
    /// Loads `path` (nil: the bundle's default tone) with ratio 1 at `toneNote` and hands
    /// it to the mixer; the files in use say so. Returns false (logged) when it does not
    /// load.
    ///
    /// The path is taken to its real file first (`realpath`): hosts keep a session's
    /// outside files as symbolic links in its state folder, and an SFZ instrument's
    /// `sample=`, `default_path` and `#include` are relative to the instrument's own
    /// folder, not the link's. A link whose file is gone is said with both paths.
    func loadTone(_ requested: String?, toneNote: Double) -> Bool {
        var path = requested
        if let link = requested {
            guard let real = realpath(link, nil) else {
                let why = String(cString: strerror(errno))
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: link)).map { " (a link to '\($0)', whose file or folder is gone)" } ?? ""
                log.error("tone '\(link)'\(target): \(why); the sound in use plays on")
                return false
            }
            path = String(cString: real)
            free(real)
        }
        let name = path ?? "(the default tone)"
        let tone: ToneSource.Loaded
        do {
            tone = try core.loadTone(path, toneNote: toneNote) { log.note($0) }
        } catch {
            // The loaders' errors name the file (an SFZ's at its line): said as they are.
            let what = "\(error)"
            log.error((what.contains(name) ? what : "tone '\(name)': \(what)") + "; the sound in use plays on")
            return false
        }
        core.play(tone)
        files.withLock {
            $0.tonePath = path
            $0.toneNote = toneNote
            $0.missingTone = nil
        }
        let regions = tone.sound.count
        let placed = ToneSource.isInstrument(tone.path) ? ", key \(String(format: "%g", toneNote)) at ratio 1 (the tone note)" : ""
        log.note("tone '\(tone.path)': \(regions) region\(regions == 1 ? "" : "s")\(placed); new notes play it")
        if path != nil && !ToneSource.isInstrument(tone.path) { hintRoot(tone.path, toneNote: toneNote) }
        return true
    }

    /// Logs a tone file's own root (its instrument chunk's, else the pitch found in it)
    /// when it is not the tone note: the port rules, the file only hints.
    func hintRoot(_ path: String, toneNote: Double) {
        guard let root = ToneSource.root(of: path), abs(root.note - toneNote) >= 0.05 else { return }
        let how = root.fromFile ? "in the file's instrument chunk" : "found in the sound"
        log.note("tone '\(path)': its root is \(root.name), \(how); it plays at the tone_note port's note "
                 + "(\(String(format: "%g", toneNote))): set tone_note to \(String(format: "%g", root.note.rounded())) for its keys to sound at their pitch")
    }

    /// The tone in use: the one chosen last, else the bundle's (what a failed load
    /// answers, so a host's file chooser shows what plays).
    var tonePathInUse: String { files.withLock { $0.tonePath } ?? core.tone.path }

    /// The `toneLoaded` answer for `path`.
    func toneResponse(_ path: String) -> UnsafeRawBufferPointer {
        let bytes = Array(path.utf8.prefix(WorkMessage.maximumPath))
        response.storeBytes(of: WorkMessage.toneLoaded, toByteOffset: 0, as: UInt32.self)
        response.storeBytes(of: UInt32(bytes.count), toByteOffset: 4, as: UInt32.self)
        bytes.withUnsafeBytes { if let b = $0.baseAddress { (response + WorkMessage.responseHeader).copyMemory(from: b, byteCount: $0.count) } }
        return UnsafeRawBufferPointer(start: response, count: WorkMessage.responseHeader + bytes.count)
    }

    /// The `tonesCollected` answer.
    func collectedResponse() -> UnsafeRawBufferPointer {
        response.storeBytes(of: WorkMessage.tonesCollected, toByteOffset: 0, as: UInt32.self)
        response.storeBytes(of: UInt32(0), toByteOffset: 4, as: UInt32.self)
        return UnsafeRawBufferPointer(start: response, count: WorkMessage.responseHeader)
    }
}
