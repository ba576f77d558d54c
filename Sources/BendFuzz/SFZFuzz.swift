// SPDX-License-Identifier: GPL-3.0-or-later
import BendSFZ

extension FuzzTarget {
    /// SFZ instruments' text (`--tone FILE.sfz`): it reads (every region's keys and
    /// velocities in range, its round robin turn within its length, its loop in order) or
    /// it is refused with a file and a line that exist. An `#include` reads the input
    /// itself again ("root.sfz": an include loop, refused), or a small part file. Seeds:
    /// the tests' instruments and the format's constructs.
    static let sfz = FuzzTarget(name: "sfz", maxLength: 8192) { bytes in
        let root = Array(bytes)
        let lines = root.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
        let part = Array("<group> lovel=10\n<region> sample=part.wav key=c4\n".utf8)
        do {
            let document = try SFZDocument.parse(root, path: "/i/root.sfz", directory: "/i") { path in
                if path == "/i/root.sfz" { return root }
                if path == "/i/part.sfz" { return part }
                throw SFZError(file: path, line: 1, "no such file")
            }
            let instrument = try SFZInstrument.make(document, directory: "/i")
            for r in instrument.regions {
                guard (0...127).contains(r.lokey), (0...127).contains(r.hikey), (1...127).contains(r.lovel), (0...127).contains(r.hivel),
                      r.sequencePosition >= 1, r.sequencePosition <= r.sequenceLength, r.offset >= 0,
                      r.loopStart.map({ s in r.loopEnd.map { s <= $0 } ?? true }) ?? true, !r.sample.isEmpty else {
                    violated("sfz", "region at \(r.location) out of range: keys \(r.lokey)…\(r.hikey), velocities \(r.lovel)…\(r.hivel), turn \(r.sequencePosition)/\(r.sequenceLength)")
                }
            }
        } catch let e as SFZError {
            let limit = e.file == "/i/part.sfz" ? 3 : lines
            guard e.line >= 1, e.line <= limit, !e.message.isEmpty else { violated("sfz", "error at a line that is not there: \(e)") }
        } catch {
            violated("sfz", "an error that names no file and line: \(error)")
        }
    }
}
