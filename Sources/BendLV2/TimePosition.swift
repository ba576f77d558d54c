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
        guard body.count >= 8 else { return false }
        var next = self
        var at = 8
        while at + 16 <= body.count {
            let key = body.loadUnaligned(fromByteOffset: at, as: UInt32.self)
            let size = Int(body.loadUnaligned(fromByteOffset: at + 8, as: UInt32.self))
            let type = body.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self)
            guard at + 16 + size <= body.count else { return false }
            if let v = TimePosition.number(body, at: at + 16, size: size, type: type, urids: urids), v.isFinite {
                if key == urids.timeBar { next.bar = v }
                else if key == urids.timeBarBeat { next.barBeat = v }
                else if key == urids.timeBeatsPerBar, v > 0 { next.beatsPerBar = v }
                else if key == urids.timeBeatUnit, v > 0 { next.beatUnit = v }
                else if key == urids.timeBeatsPerMinute, v > 0 { next.bpm = min(v, 1000) }
                else if key == urids.timeSpeed { next.speed = v }
            }
            at += (16 + size + 7) & ~7
        }
        self = next
        return true
    }

    /// A number atom's value (Int, Long, Float, Double), nil for another type.
    @_noLocks
    static func number(_ body: UnsafeRawBufferPointer, at: Int, size: Int, type: UInt32, urids: PluginURIDs) -> Double? {
        if type == urids.atomFloat && size >= 4 { return Double(body.loadUnaligned(fromByteOffset: at, as: Float.self)) }
        if type == urids.atomDouble && size >= 8 { return body.loadUnaligned(fromByteOffset: at, as: Double.self) }
        if type == urids.atomInt && size >= 4 { return Double(body.loadUnaligned(fromByteOffset: at, as: Int32.self)) }
        if type == urids.atomLong && size >= 8 { return Double(body.loadUnaligned(fromByteOffset: at, as: Int64.self)) }
        return nil
    }

    /// The beat this position says, counted from the song's start: bar × beats per bar +
    /// the bar's beat (the clock `HostRender.publishTransport` makes of it).
    var beat: Double { @_noLocks get { bar * beatsPerBar + barBeat } }
}
