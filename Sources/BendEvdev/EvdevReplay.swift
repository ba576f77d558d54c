import BendControl

/// A recording's events decoded as a live device would be: the touch script of a
/// performance (`bendsynth replay`).
///
/// - Thread: any (pure functions).
public enum EvdevReplay {
    /// One decoded frame: its time and what it did.
    public struct Frame: Sendable, Equatable {
        /// Microseconds from the recording's first event (deltas between timestamps, so
        /// epoch-based recordings start at 0 too, RW-04).
        public var micros: Int64
        public var events: [ControlEvent]
        public init(micros: Int64, events: [ControlEvent]) {
            self.micros = micros
            self.events = events
        }
    }

    /// Decodes `events` through `EvdevDecoder`, keeping frames that did something.
    /// - Parameter releaseAtEnd: end every touch still down after the last event (the
    ///   replayed device goes away, as an unplug does); otherwise they stay down.
    public static func frames(device: EvdevDeviceDescription, events: [InputEvent], mapping: EvdevMapping = EvdevMapping(),
                              releaseAtEnd: Bool) -> [Frame] {
        var decoder = EvdevDecoder(device: device, mapping: mapping)
        let start = events.first?.micros ?? 0
        var out: [Frame] = []
        for e in events {
            let decoded = decoder.feed(e)
            if !decoded.isEmpty { out.append(Frame(micros: max(0, e.micros - start), events: decoded)) }
        }
        if releaseAtEnd {
            let ups = decoder.deviceRemoved()
            if !ups.isEmpty { out.append(Frame(micros: max(0, (events.last?.micros ?? start) - start), events: ups)) }
        }
        return out
    }

    /// The frames as a touch script, times in seconds from the first event.
    public static func script(_ frames: [Frame]) -> TouchScript {
        TouchScript(entries: frames.flatMap { f in
            f.events.map { TouchScript.Entry(time: Double(f.micros) / 1e6, event: $0) }
        })
    }

    /// A recording decoded into a touch script.
    public static func script(_ recording: EvemuRecording, mapping: EvdevMapping = EvdevMapping(), releaseAtEnd: Bool = true) -> TouchScript {
        script(frames(device: recording.device, events: recording.events, mapping: mapping, releaseAtEnd: releaseAtEnd))
    }
}
