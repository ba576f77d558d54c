// SPDX-License-Identifier: GPL-3.0-or-later

/// Where a live instrument's sound and MIDI go.
public struct OutputSettings: Sendable {
    public enum Driver: Sendable, Equatable {
        /// An ALSA PCM (`aplay -D` name), its period (frames) and periods per buffer.
        case alsa(device: String, periodFrames: Int, periods: Int)
        /// A native JACK client named `name`; `connect`: its outputs to the first two
        /// `system:playback_*` ports.
        case jack(name: String, connect: Bool)
    }

    public var driver = Driver.alsa(device: "default", periodFrames: 256, periods: 3)
    /// JACK `midi_out`: every touch as MPE (with `.jack` only).
    public var midiOut = false
    /// What to suggest when no ALSA device opens and nothing records (`replay`: its -o).
    public var noOutputHint: String?
    /// Measure the render thread's load and the events' latency; said at the end.
    public var loadStats = false

    public init(driver: Driver = .alsa(device: "default", periodFrames: 256, periods: 3)) {
        self.driver = driver
    }

    /// True with a JACK client.
    public var isJACK: Bool { if case .jack = driver { true } else { false } }
}

/// The files a live take is recorded into; each nil when not asked for. A take cannot be
/// made again, so an existing file is never replaced unless `overwrite`: the take goes to
/// numbered names instead (`RecordingFiles`).
public struct Recordings: Sendable, Equatable {
    /// Exactly what is played (the format of the extension).
    public var sound: String?
    /// Every touch and tilt as a touch script.
    public var touches: String?
    /// Every touch and tilt as MPE in a Standard MIDI File.
    public var midi: String?
    public var overwrite = false

    public init(sound: String? = nil, touches: String? = nil, midi: String? = nil, overwrite: Bool = false) {
        self.sound = sound
        self.touches = touches
        self.midi = midi
        self.overwrite = overwrite
    }

    /// The names asked for, as (what, path), in order: sound, touches, MIDI.
    var requested: [(option: String, path: String)] {
        [("--record", sound), ("--record-touches", touches), ("--record-midi", midi)].compactMap { o, p in p.map { (o, $0) } }
    }
}

/// Everything a live instrument (`play`, `remote --monitor`, `replay`) is assembled from.
public struct LiveSettings: Sendable {
    public var sound: SoundSettings
    public var output: OutputSettings
    public var recordings: Recordings
    /// The input sources, in order (their source numbers 0, 1, …).
    public var sources: [SourceSettings]

    public init(sound: SoundSettings, output: OutputSettings = OutputSettings(), recordings: Recordings = Recordings(),
                sources: [SourceSettings]) {
        self.sound = sound
        self.output = output
        self.recordings = recordings
        self.sources = sources
    }
}
