// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine

/// The instrument's meters at one moment: what a source may show (a pad's status line,
/// a peer's STATUS frame, the web pad's status) without seeing the engine.
public struct MeterSnapshot: Sendable, Equatable {
    /// Frames rendered so far (the stream position).
    public var position: UInt64 = 0
    /// Voices sounding after the last period, fading ones included (count).
    public var voices = 0
    /// Largest absolute sample of the last period, linear amplitude (1 = 0 dBFS).
    public var peak: Float = 0
    /// The limiter's smallest gain in the last period, linear (1: no reduction).
    public var limiterGain: Float = 1

    public init(position: UInt64 = 0, voices: Int = 0, peak: Float = 0, limiterGain: Float = 1) {
        self.position = position
        self.voices = voices
        self.peak = peak
        self.limiterGain = limiterGain
    }
}

/// The read-only meters the control layer publishes to input sources: each read is the
/// engine's latest period (relaxed atomics written once per period by the render thread),
/// so sources need no engine import and can never send it anything but through their
/// `ControlPort`.
/// - Thread: any.
public struct InstrumentMeters: @unchecked Sendable {
    private let mixer: Mixer?

    /// The meters of `mixer`. - Thread: setup.
    public init(mixer: Mixer) { self.mixer = mixer }

    private init() { mixer = nil }

    /// Meters that always read silence at position 0 (a source tested on its own).
    public static let silent = InstrumentMeters()

    /// The meters now.
    public var snapshot: MeterSnapshot {
        guard let mixer else { return MeterSnapshot() }
        return MeterSnapshot(position: mixer.position, voices: mixer.activeVoices, peak: mixer.peak, limiterGain: mixer.limiterGain)
    }

    /// Frames rendered so far.
    public var position: UInt64 { mixer?.position ?? 0 }
    /// Voices sounding after the last period (count).
    public var voices: Int { mixer?.activeVoices ?? 0 }
}
