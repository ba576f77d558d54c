// SPDX-License-Identifier: GPL-3.0-or-later

/// The host's transport as LV2 time.h has a host say it: a time:Position atom:Object on
/// a plugin's control input (what Ardour and jalv forge each time the transport starts,
/// stops, locates or changes tempo).
extension LV2PluginHost {
    /// A time:Position at `frame` of the next block: bar (time:bar, an atom:Long), beat in
    /// the bar (time:barBeat, Float), the meter (time:beatsPerBar Float, time:beatUnit Int),
    /// tempo (time:beatsPerMinute, Float) and speed (time:speed, Float: 1 rolling, 0 stopped).
    public func position(bpm: Float, bar: Int64 = 0, barBeat: Float = 0, beatsPerBar: Float = 4, beatUnit: Int32 = 4, speed: Float = 1,
                         at frame: Int, port: Int = 0) {
        var body: [UInt8] = []
        func word(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { body += $0 } }
        func key(_ name: String, type: String, size: UInt32) {
            word(urid("http://lv2plug.in/ns/ext/time#" + name)); word(0)
            word(size); word(urid("http://lv2plug.in/ns/ext/atom#" + type))
        }
        word(0); word(urid("http://lv2plug.in/ns/ext/time#Position"))                       // id, otype
        key("bar", type: "Long", size: 8); withUnsafeBytes(of: bar.littleEndian) { body += $0 }
        key("barBeat", type: "Float", size: 4); word(barBeat.bitPattern); word(0)
        key("beatsPerBar", type: "Float", size: 4); word(beatsPerBar.bitPattern); word(0)
        key("beatUnit", type: "Int", size: 4); word(UInt32(bitPattern: beatUnit)); word(0)
        key("beatsPerMinute", type: "Float", size: 4); word(bpm.bitPattern); word(0)
        key("speed", type: "Float", size: 4); word(speed.bitPattern); word(0)
        precondition(atomInputs[port].append(frame: frame, type: urid("http://lv2plug.in/ns/ext/atom#Object"), bytes: body), "atom input full")
    }
}
