// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

extension FuzzTarget {
    /// Scala keyboard mappings (.kbm): what parses is a usable map (as many entries as its
    /// size, first ≤ last, keys 0…127, a positive finite reference frequency, a mapped
    /// reference key), and every key through 12-TET and a 3-note scale is silent or at a
    /// frequency ≥ 0, never NaN; the reference key, when retuned, at the reference
    /// frequency. Seeds: the tests' .kbm corpus.
    static let keyboardMap = FuzzTarget(name: "kbm", maxLength: 4096) { bytes in
        guard let map = try? KeyboardMap.parse(Array(bytes), path: "fuzz.kbm") else { return }
        guard map.mapping.count == map.size, map.firstKey <= map.lastKey, (0...127).contains(map.firstKey),
              (0...127).contains(map.lastKey), (0...127).contains(map.middleKey), (0...127).contains(map.referenceKey),
              map.referenceHz.isFinite, map.referenceHz > 0 else {
            violated("kbm", "fields \(map)")
        }
        for scale in [Scale.edo(12), Scale(name: "3", pitches: [150, 400.5, 1901.955])!] {
            let hz = map.frequencies(scale: scale)
            if hz.count != 128 { violated("kbm", "\(hz.count) keys") }
            for case let f? in hz where !(f >= 0) { violated("kbm", "a key at \(f) Hz") }
            if (map.firstKey...map.lastKey).contains(map.referenceKey),
               let f = hz[map.referenceKey], abs(f - map.referenceHz) > 1e-9 * map.referenceHz {
                violated("kbm", "the reference key at \(f) Hz, not \(map.referenceHz)")
            }
        }
    }
}
