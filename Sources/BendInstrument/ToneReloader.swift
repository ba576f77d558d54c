// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Glibc

/// `play`'s tone, loaded again when its files change — an SFZ instrument's text, a file it
/// includes, one of its samples, or a tone file — so an instrument can be edited and heard
/// without stopping (as sfizz does). Its tones are the instrument core's (`SwappedTones`):
/// the core frees them.
///
/// Each second the files' sizes and times are compared with those they had when loaded;
/// a change is loaded once it has held still for a second (an editor done writing). The
/// new tone goes to the mixer without a lock (`Mixer.replace`): new touches play it,
/// sounding voices play the old one to their end. A file that does not load is said
/// ("does not load: … ; the sound in use plays on") and nothing that sounds stops. A tone
/// the mixer gives back (`Mixer.takeRetired`) is freed here, on the reloader's own loop
/// (`bendsynth tone`), never on the render thread.
/// - Thread: setup (`init`, `start`, `finish`); the loop's thread for the rest.
final class ToneReloader: @unchecked Sendable {
    private let sound: SoundSettings
    private let rate: Double
    private let log: @Sendable (String) -> Void
    private var loop: EventLoop?
    /// The core's tones: the one playing, those handed to the mixer, those it gave back.
    private let tones: SwappedTones
    /// The files' signatures as the playing tone was loaded, and a change seen once.
    private var signature: [String]
    private var pending: [String]?

    init(_ core: InstrumentCore, log: @escaping @Sendable (String) -> Void) {
        tones = core.tones
        sound = core.sound
        rate = core.rate
        self.log = log
        signature = Self.signature(core.tone.files)
    }

    /// Watches the files from now on, once a second.
    /// - Throws: `SystemError` when the loop's thread cannot start.
    func start() throws {
        let loop = try EventLoop(name: "bendsynth tone")
        try loop.start()
        self.loop = loop
        loop.schedule(after: 1_000_000_000, repeating: 1_000_000_000) { [self] in tick() }
    }

    /// Stops watching (its loop's thread ends): before the mixer is freed.
    func stop() {
        loop?.stop()
        loop = nil
    }

    /// Size and modification time of each file ("" for one that cannot be read).
    static func signature(_ files: [String]) -> [String] {
        files.map { path in
            var s = stat()
            guard stat(path, &s) == 0 else { return "" }
            return "\(s.st_size) \(s.st_mtim.tv_sec).\(s.st_mtim.tv_nsec)"
        }
    }

    private func tick() {
        tones.freeRetired()
        let playing = tones.playing
        let now = Self.signature(playing.files)
        guard now != signature else { pending = nil; return }
        guard now == pending else { pending = now; return }  // still being written: the next tick
        pending = nil
        signature = now
        let note = log
        do {
            let tone = try ToneSource.load(sound, rate: rate, levelsNow: false, note: { note("note: \($0)") })
            let levels: SystemThread?
            do { levels = try ToneSource.makeLevelsInBackground(tone, log: log) } catch {
                log("\(error)")
                levels = nil
            }
            signature = Self.signature(tone.files)
            tones.swap(to: tone, levels: levels)
            log("tone '\(playing.path)' changed: loaded again (\(tone.sound.count) region\(tone.sound.count == 1 ? "" : "s")); new touches play it")
        } catch {
            log("tone '\(playing.path)' changed but does not load: \(error); the sound in use plays on")
        }
    }
}
