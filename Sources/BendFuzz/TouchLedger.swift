// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

/// What the events a decoder emitted add up to: the touches held now. Checks every event
/// on the way (a touch starts once, moves and ends only while held, positions in 0…1,
/// ratios and gains finite) and, at the end, that nothing is held: the instrument is the
/// authority on touches, and every touch a source starts ends.
struct TouchLedger {
    let target: String
    private(set) var held: Set<UInt32> = []
    private(set) var started = 0
    var sustained = false

    init(_ target: String) { self.target = target }

    mutating func apply(_ events: [ControlEvent]) { for e in events { apply(e) } }

    mutating func apply(_ event: ControlEvent) {
        switch event {
        case let .touch(id, phase, x, y):
            if phase != .up, !(0...1).contains(x) || !(0...1).contains(y) {
                violated(target, "touch \(id) \(phase) at (\(x), \(y)), outside 0…1")
            }
            track(id, phase)
        case let .pitched(id, phase, ratio, gain, y):
            if phase != .up, !(ratio.isFinite && ratio >= 0) || !(0...1).contains(gain) || !y.isFinite {
                violated(target, "pitched touch \(id) \(phase) ratio \(ratio) gain \(gain) y \(y)")
            }
            track(id, phase)
        case let .tilt(t):
            if !(-1...1).contains(t) { violated(target, "tilt \(t), outside −1…1") }
        case let .timbre(id, value):
            if !(0...1).contains(value) { violated(target, "timbre of touch \(id) \(value), outside 0…1") }
        case let .send(id, _, value):
            if !(0...1).contains(value) { violated(target, "send of touch \(id) \(value), outside 0…1") }
        case let .sustain(on):
            sustained = on
        }
    }

    private mutating func track(_ id: UInt32, _ phase: TouchPhase) {
        switch phase {
        case .down:
            if !held.insert(id).inserted { violated(target, "touch \(id) started while held") }
            started += 1
        case .move:
            if !held.contains(id) { violated(target, "touch \(id) moved while not held") }
        case .up:
            if held.remove(id) == nil { violated(target, "touch \(id) ended while not held") }
        }
    }

    /// After the source closed: no touch held, sustain let go.
    func checkAllEnded(_ when: String) {
        if !held.isEmpty { violated(target, "\(held.count) touches still held after \(when): \(held.sorted().prefix(8))") }
        if sustained { violated(target, "sustain still down after \(when)") }
    }
}
