// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import Foundation

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

    /// The recording at `paths` (one evemu file, or a .desc and its .events) decoded
    /// into a touch script, touches still down at its end released there, with one line
    /// that says what it was: `"NAME" — KIND; N events, N touches, S s`.
    /// - Throws: `InstrumentError(.input)` naming the file (and line) of a malformed
    ///   recording, one with no events, or one of a device that is no touch device or
    ///   accelerometer.
    public static func load(paths: [String], mapping: EvdevMapping) throws -> (script: TouchScript, summary: String) {
        let recording: EvemuRecording
        do { recording = try EvemuRecording.load(paths: paths) } catch let e as EvemuRecording.ParseError {
            throw InstrumentError(.input, "\(e)")
        }
        guard !recording.events.isEmpty else {
            throw InstrumentError(.input, "\(paths.last!): the recording has no events"
                + (paths.count == 1 && paths[0].hasSuffix(".desc") ? "; a .desc file comes with its .events file: bendsynth replay DEVICE.desc EVENTS.events" : ""))
        }
        let kind = EvdevDeviceKind.classify(recording.device)
        let name = UntrustedText.escaped(recording.device.name)
        if case .skipped(let why) = kind {
            throw InstrumentError(.input, "\(paths[0]): device \"\(name)\" is no touch device or accelerometer: \(why)")
        }
        let script = self.script(frames(device: recording.device, events: recording.events, mapping: mapping, releaseAtEnd: true))
        let touches = script.entries.filter { if case .touch(_, .down, _, _) = $0.event { true } else { false } }.count
        return (script, "\"\(name)\" — \(kind.summary); \(recording.events.count) events, \(touches) touches, \(String(format: "%.3f", script.duration)) s")
    }
}
