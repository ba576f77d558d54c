// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A WAV tone file's `data` chunk held against the file it is in: libsndfile reads a data
/// chunk that claims more than the file holds up to the file's end, so a truncated file
/// loads silently and chunks written after the audio (a `LIST`, `smpl`, `id3 ` that
/// the writer put after the data without fixing its size) play as audio — a click each
/// pass of the loop. This finds both and says how many frames are audio.
/// - Thread: any non-real-time thread.
enum WAVChunkCheck {
    /// What was wrong and the frames that are audio.
    struct Finding: Equatable {
        /// Frames of audio to keep (of those libsndfile read).
        var frames: Int
        /// What was wrong, for a warning naming the file.
        var warning: String
    }

    /// How far back from the file's end trailing chunks are looked for, bytes.
    static let trailingSearchBytes = 1 << 20

    /// Checks `path` (a RIFF WAV; anything else, an RF64 or a data size libsndfile treats
    /// as "to the end" — 0 or 0xFFFFFFFF, pipe-written — is not checked) against the
    /// `readFrames` libsndfile read. nil: nothing wrong.
    static func check(path: String, readFrames: Int) -> Finding? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        func bytes(_ offset: Int, _ count: Int) -> [UInt8] {
            var b = [UInt8](repeating: 0, count: count)
            let got = b.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return got == count ? b : []
        }
        let riff = bytes(0, 12)
        guard riff.count == 12, riff[0..<4].elementsEqual("RIFF".utf8), riff[8..<12].elementsEqual("WAVE".utf8) else { return nil }
        var offset = 12, blockAlign = 0
        while offset + 8 <= size {
            let header = bytes(offset, 8)
            guard header.count == 8 else { return nil }
            let id = String(decoding: header[0..<4], as: UTF8.self), length = le32(header, 4)
            if id == "fmt " {
                let fmt = bytes(offset + 8, 16)
                if fmt.count == 16 { blockAlign = Int(fmt[12]) | Int(fmt[13]) << 8 }
            } else if id == "data" {
                return data(start: offset + 8, claimed: length, fileSize: size, blockAlign: blockAlign, readFrames: readFrames,
                            bytes: bytes)
            }
            offset += 8 + length + (length & 1)
        }
        return nil
    }

    /// The data chunk from `start`, claiming `claimed` bytes, in a file of `fileSize`.
    private static func data(start: Int, claimed: Int, fileSize: Int, blockAlign: Int, readFrames: Int,
                             bytes: (Int, Int) -> [UInt8]) -> Finding? {
        let held = fileSize - start
        guard blockAlign > 0, claimed != 0, claimed != 0xFFFF_FFFF, claimed > held else { return nil }
        let claimedFrames = claimed / blockAlign
        if let (at, id) = trailingChunks(from: start, fileSize: fileSize, bytes: bytes) {
            let frames = min(readFrames, (at - start) / blockAlign)
            return Finding(frames: frames, warning: "its data chunk claims \(claimed) bytes (\(claimedFrames) frames) but the file "
                + "holds \(held) after it, ending in a '\(id)' chunk at byte \(at) that is not audio: loaded the \(frames) frames before "
                + "it, not the \(readFrames) libsndfile read (the writer did not fix the data chunk's size)")
        }
        let frames = min(readFrames, held / blockAlign)
        return Finding(frames: frames, warning: "truncated: its data chunk claims \(claimed) bytes (\(claimedFrames) frames) but the "
            + "file holds \(held) after it: loaded the \(frames) frames there are")
    }

    /// The first offset (word-aligned from the data's start) within the last
    /// `trailingSearchBytes` from which whole chunks with printable ids run exactly to
    /// the file's end, and the first one's id.
    private static func trailingChunks(from start: Int, fileSize: Int, bytes: (Int, Int) -> [UInt8]) -> (Int, String)? {
        let from = max(start, fileSize - trailingSearchBytes)
        let tail = bytes(from, fileSize - from)
        guard !tail.isEmpty else { return nil }
        func isID(_ i: Int) -> Bool {
            guard i + 8 <= tail.count else { return false }
            return (0..<4).allSatisfy { (0x20...0x7E).contains(tail[i + $0]) } && tail[i].isLetterOrDigit
        }
        func runsToEnd(_ i: Int) -> Bool {
            var o = i
            while o + 8 <= tail.count, isID(o) {
                let length = le32(tail, o + 4)
                o += 8 + length + (length & 1)
                if o == tail.count || (o == tail.count + 1 && length & 1 == 1) { return true }
            }
            return false
        }
        var i = from & 1  // chunks start at even offsets
        while i + 8 <= tail.count {
            if isID(i) && runsToEnd(i) { return (from + i, String(decoding: tail[i..<(i + 4)], as: UTF8.self)) }
            i += 2
        }
        return nil
    }

    private static func le32(_ b: [UInt8], _ i: Int) -> Int {
        Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
    }
}

private extension UInt8 {
    var isLetterOrDigit: Bool { (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) }
}
