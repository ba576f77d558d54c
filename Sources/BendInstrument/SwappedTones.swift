// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import BendSystem

/// The tones an instrument has handed to its mixer, owned until no voice plays them:
/// `play`'s reloads (`ToneReloader`) and the LV2 plugin's tone parameter
/// (`HostedInstrument`) both swap tones this way.
///
/// `swap` gives a tone to the mixer without a lock (`Mixer.replace`: new touches start on
/// it, sounding voices keep theirs to their end); a tone the mixer gives back
/// (`Mixer.takeRetired`) or displaces is freed by `freeRetired`/`swap`, never on the
/// render thread.
/// - Thread: one control thread at a time (never the render thread).
final class SwappedTones: @unchecked Sendable {
    private let mixer: Mixer
    /// Every tone not yet freed (the one new touches play last), with the thread making
    /// its band-limited levels (voices read cubic until they are installed).
    private var tones: [(tone: ToneSource.Loaded, levels: SystemThread?)]

    /// Owns `tone`, the one `mixer` was made with.
    init(playing tone: ToneSource.Loaded, levels: SystemThread?, mixer: Mixer) {
        tones = [(tone, levels)]
        self.mixer = mixer
    }

    /// The tone new touches play (the last handed to the mixer).
    var playing: ToneSource.Loaded { tones[tones.count - 1].tone }

    /// New touches play `tone` from the next period on; owned from now on. Tones the
    /// mixer gave back are freed first.
    func swap(to tone: ToneSource.Loaded, levels: SystemThread?) {
        freeRetired()
        tones.append((tone, levels))
        if let displaced = mixer.replace(with: tone.sound) { free(displaced) }
    }

    /// Frees the tones the mixer gave back (no voice plays them, new touches do not start
    /// on them). Returns how many.
    @discardableResult
    func freeRetired() -> Int {
        var n = 0
        while let sound = mixer.takeRetired() {
            free(sound)
            n += 1
        }
        return n
    }

    /// Waits for the levels being made and frees every tone: after the render thread
    /// stopped and the mixer was freed.
    func deallocate() {
        for (tone, levels) in tones {
            levels?.join()
            tone.deallocate()
        }
        tones = []
    }

    private func free(_ sound: Sound) {
        guard let i = tones.firstIndex(where: { $0.tone.sound.isSame(as: sound) }) else { return }
        let (tone, levels) = tones.remove(at: i)
        levels?.join()
        tone.deallocate()
    }
}
