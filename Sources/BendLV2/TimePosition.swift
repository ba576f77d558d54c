// SPDX-License-Identifier: GPL-3.0-or-later
/// A host's transport as LV2 time.h says it: a time:Position atom:Object on the control
/// input (Ardour, Carla, jalv and the rest send one when the transport starts, stops,
/// locates or changes tempo, and many every block). Its properties each come as an
/// atom:Int, Long, Float or Double: time:bar, time:barBeat, time:beatsPerBar,
/// time:beatUnit, time:beatsPerMinute, time:speed. What a message leaves out keeps its
/// last value (a host may send only the tempo). Read in place: no allocation, for the
/// render thread.
struct TimePosition {
    var bar: Double = 0
    var barBeat: Double = 0
    var beatsPerBar: Double = 4
    var beatUnit: Double = 4
    var bpm: Double = 120
    /// Transport speed: 1 rolling, 0 stopped.
    var speed: Double = 0

    @_noLocks
    init() {}

    /// Takes the values an atom:Object's body holds (the object known to be a
    /// time:Position), the others kept. False: a short or malformed body (nothing taken).
    @_noLocks
    mutating func take(_ body: UnsafeRawBufferPointer, urids: PluginURIDs) -> Bool {
        var next = self
        let whole = AtomObject.forEachProperty(body) { key, type, value in
            guard let v = TimePosition.number(value, type: type, urids: urids), v.isFinite else { return }
            if key == urids.timeBar { next.bar = v }
            else if key == urids.timeBarBeat { next.barBeat = v }
            else if key == urids.timeBeatsPerBar, v > 0 { next.beatsPerBar = v }
            else if key == urids.timeBeatUnit, v > 0 { next.beatUnit = v }
            else if key == urids.timeBeatsPerMinute, v > 0 { next.bpm = min(v, 1000) }
            else if key == urids.timeSpeed { next.speed = v }
        }
        if whole { self = next }
        return whole
    }

    /// A number atom's value (Int, Long, Float, Double), nil for another type.
    @_noLocks
    static func number(_ value: UnsafeRawBufferPointer, type: UInt32, urids: PluginURIDs) -> Double? {
        if type == urids.atomFloat && value.count >= 4 { return Double(value.loadUnaligned(as: Float.self)) }
        if type == urids.atomDouble && value.count >= 8 { return value.loadUnaligned(as: Double.self) }
        if type == urids.atomInt && value.count >= 4 { return Double(value.loadUnaligned(as: Int32.self)) }
        if type == urids.atomLong && value.count >= 8 { return Double(value.loadUnaligned(as: Int64.self)) }
        return nil
    }

    /// The beat this position says, counted from the song's start: bar × beats per bar +
    /// the bar's beat (the clock `HostRender.publishTransport` makes of it).
    var beat: Double { @_noLocks get { bar * beatsPerBar + barBeat } }
}
