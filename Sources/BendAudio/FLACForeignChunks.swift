// SPDX-License-Identifier: GPL-3.0-or-later
import CFLAC
import CSndFile

/// The WAV chunks a FLAC file keeps: `flac --keep-foreign-metadata` stores each RIFF chunk
/// of the WAV it encoded (`fmt `, `smpl`, `LIST`, …) in an APPLICATION metadata block
/// with the id "riff". libsndfile reads no APPLICATION block, so a FLAC made from a looped
/// WAV loses its loops and root key to it; this reads them with libFLAC's metadata
/// iterator and gives them as libsndfile gives a WAV's (`SF_INSTRUMENT`), so the rest of
/// the loader treats both alike.
enum FLACForeignChunks {
    /// The file's `smpl` chunk as libsndfile reads a WAV's (wav.c): the unity note, the
    /// pitch fraction as detune in cents, up to 16 loops with their end one past the last
    /// frame; nil when the file keeps no `smpl` chunk (or is not a FLAC libFLAC reads).
    static func instrument(path: String) -> SF_INSTRUMENT? {
        guard let chunk = chunk("smpl", path: path), chunk.count >= 36 else { return nil }
        func u32(_ at: Int) -> UInt32 {
            UInt32(chunk[at]) | UInt32(chunk[at + 1]) << 8 | UInt32(chunk[at + 2]) << 16 | UInt32(chunk[at + 3]) << 24
        }
        var instrument = SF_INSTRUMENT()
        instrument.gain = 1
        instrument.basenote = Int8(truncatingIfNeeded: min(u32(12), 127))
        instrument.detune = Int8(truncatingIfNeeded: Int((Double(u32(16)) / (Double(0x4000_0000) / 25) + 0.5).rounded(.down)))
        instrument.velocity_hi = 127
        instrument.key_hi = 127
        let count = min(Int(u32(28)), 16, (chunk.count - 36) / 24)
        instrument.loop_count = Int32(count)
        for i in 0..<count {
            let at = 36 + 24 * i
            let mode: Int32 = switch u32(at + 4) {
            case 0: Int32(SF_LOOP_FORWARD)
            case 1: Int32(SF_LOOP_ALTERNATING)
            case 2: Int32(SF_LOOP_BACKWARD)
            default: Int32(SF_LOOP_NONE)
            }
            // smpl's end is the loop's last frame; libsndfile gives one past it.
            csndfile_set_instrument_loop(&instrument, Int32(i),
                                         csndfile_loop(mode: mode, start: u32(at + 8), end: u32(at + 12) &+ 1, count: u32(at + 20)))
        }
        return instrument
    }

    /// The body of the first kept RIFF chunk `id`, or nil.
    static func chunk(_ id: String, path: String) -> [UInt8]? {
        let wanted = Array(id.utf8)
        for block in riffBlocks(path: path) {
            // A block holds one chunk (or, for the first, "RIFF" size "WAVE"); read it as a
            // run of chunks either way.
            var at = block.starts(with: Array("RIFF".utf8)) ? 12 : 0
            while at + 8 <= block.count {
                let size = Int(UInt32(block[at + 4]) | UInt32(block[at + 5]) << 8 | UInt32(block[at + 6]) << 16 | UInt32(block[at + 7]) << 24)
                let body = at + 8
                if Array(block[at..<(at + 4)]) == wanted { return Array(block[body..<min(body + size, block.count)]) }
                at = body + size + (size & 1)
            }
        }
        return nil
    }

    /// The data of every APPLICATION block with the id "riff", in file order.
    static func riffBlocks(path: String) -> [[UInt8]] {
        guard let iterator = FLAC__metadata_simple_iterator_new() else { return [] }
        defer { FLAC__metadata_simple_iterator_delete(iterator) }
        guard FLAC__metadata_simple_iterator_init(iterator, path, 1, 0) != 0 else { return [] }
        var blocks: [[UInt8]] = []
        repeat {
            guard FLAC__metadata_simple_iterator_get_block_type(iterator) == FLAC__METADATA_TYPE_APPLICATION,
                  let block = FLAC__metadata_simple_iterator_get_block(iterator) else { continue }
            defer { FLAC__metadata_object_delete(block) }
            let application = block.pointee.data.application
            let id = withUnsafeBytes(of: application.id) { Array($0) }
            // The block's length counts the 4-byte id.
            let length = Int(block.pointee.length) - 4
            guard id == Array("riff".utf8), length > 0, let data = application.data else { continue }
            blocks.append(Array(UnsafeBufferPointer(start: data, count: length)))
        } while FLAC__metadata_simple_iterator_next(iterator) != 0
        return blocks
    }
}
