// SPDX-License-Identifier: GPL-3.0-or-later

/// patch:Set and patch:Get messages (patch.h) as a host's generic UI sends them to a
/// plugin's control input — a file parameter (`patch:writable`, atom:Path) — and the
/// plugin's patch:Set notifications read back from its output.
extension LV2PluginHost {
    /// A patch:Set of `property` (a parameter's URI) to the file `path`, at `frame` of the
    /// next block, on atom input `port`.
    public func setPath(_ property: String, to path: String, at frame: Int, port: Int = 0) {
        let bytes = Array(path.utf8) + [0]
        var body: [UInt8] = []
        func word(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { body += $0 } }
        word(0); word(urid("http://lv2plug.in/ns/ext/patch#Set"))                                  // id, otype
        word(urid("http://lv2plug.in/ns/ext/patch#property")); word(0)                             // key, context
        word(4); word(urid("http://lv2plug.in/ns/ext/atom#URID")); word(urid(property)); word(0)   // value (padded)
        word(urid("http://lv2plug.in/ns/ext/patch#value")); word(0)
        word(UInt32(bytes.count)); word(urid("http://lv2plug.in/ns/ext/atom#Path"))
        body += bytes
        precondition(atomInputs[port].append(frame: frame, type: urid("http://lv2plug.in/ns/ext/atom#Object"), bytes: body), "atom input full")
    }

    /// A patch:Get (of every parameter) at `frame` of the next block.
    public func getParameters(at frame: Int, port: Int = 0) {
        var body: [UInt8] = []
        func word(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { body += $0 } }
        word(0); word(urid("http://lv2plug.in/ns/ext/patch#Get"))
        precondition(atomInputs[port].append(frame: frame, type: urid("http://lv2plug.in/ns/ext/atom#Object"), bytes: body), "atom input full")
    }

    /// The patch:Set messages of the last block's atom output `port`: (frame, property URI,
    /// path).
    public func pathsSet(port: Int = 0) -> [(frame: Int, property: String, path: String)] {
        let object = urid("http://lv2plug.in/ns/ext/atom#Object"), set = urid("http://lv2plug.in/ns/ext/patch#Set")
        let propertyKey = urid("http://lv2plug.in/ns/ext/patch#property"), valueKey = urid("http://lv2plug.in/ns/ext/patch#value")
        var out: [(Int, String, String)] = []
        for e in atomOutputs[port].events where e.type == object && e.bytes.count >= 8 {
            func word(_ at: Int) -> UInt32 { e.bytes[at..<(at + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } }
            guard word(4) == set else { continue }
            var property = "", path = ""
            var at = 8
            while at + 16 <= e.bytes.count {
                let key = word(at), size = Int(word(at + 8))
                guard at + 16 + size <= e.bytes.count else { break }
                if key == propertyKey, size >= 4, let uri = self.uri(of: word(at + 16)) { property = uri }
                if key == valueKey { path = String(decoding: e.bytes[(at + 16)..<(at + 16 + size)].prefix { $0 != 0 }, as: UTF8.self) }
                at += (16 + size + 7) & ~7
            }
            out.append((e.frame, property, path))
        }
        return out
    }
}
