// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import BendSystem
import CSndFile
import Glibc
import Synchronization

/// A WAV file that cannot be written: the file, the failing call and libsndfile's
/// (`sf_strerror`) or the system's (`strerror`) text, e.g.
/// `WAV file 'out/take.wav': sf_open: System error : No such file or directory.`
public struct WAVFileError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file the caller asked for.
    public var path: String
    /// The failing call, e.g. "sf_open", "sf_writef_float", "rename(.take.wav.tmp → take.wav)".
    public var call: String
    /// The library's or system's text.
    public var reason: String
    public var description: String { "WAV file '\(path)': \(call): \(reason)" }
}

/// An open 32-bit float WAV file written through libsndfile. Used by `WAVRecorder` and
/// `RenderFile`. Not thread-safe: one thread at a time.
final class FloatWAVWriter {
    /// The name used in errors (the caller's path, even when writing a temporary file).
    let displayPath: String
    let channels: Int
    private let rf64: Bool
    /// Sample bytes written so far.
    private var bytes = 0
    /// Largest WAV data size: the RIFF size field is 32 bits (a little header room kept).
    static let wavDataLimit = 0xFFFF_FFFF - 4096
    private var handle: OpaquePointer?

    /// Creates (truncates) `path` as a float32 WAV.
    /// - Parameter rf64: write RF64 with libsndfile's automatic downgrade (a file that ends
    ///   below 4 GiB is a plain WAV, a longer one RF64, never a WAV whose 32-bit sizes
    ///   wrap) — for files finished in one go. Without it (a recording, whose header must
    ///   be valid while it grows) the file is a WAV and writing stops at 4 GiB.
    /// - Throws: `WAVFileError` (call "sf_open") naming `displayPath`.
    /// - Parameters:
    ///   - format: the file's container and encoding (`render -o`; default float32 WAV);
    ///     libsndfile converts the float frames written. The 4 GiB limit is WAV's only.
    ///   - descriptor: write to this open descriptor (a pipe: `render -o -`) instead of `path`.
    init(path: String, displayPath: String, rate: Int, channels: Int, rf64: Bool = false,
         format: SoundFileFormat = .wavFloat, descriptor: Int32? = nil) throws {
        self.displayPath = displayPath
        self.channels = channels
        var info = SF_INFO()
        info.samplerate = Int32(rate)
        info.channels = Int32(channels)
        info.format = format.sfFormat(rf64: rf64)
        let opened = descriptor.map { sf_open_fd($0, Int32(SFM_WRITE), &info, 0) } ?? sf_open(path, Int32(SFM_WRITE), &info)
        guard let handle = opened else {
            throw WAVFileError(path: displayPath, call: "sf_open", reason: String(cString: sf_strerror(nil)))
        }
        if rf64 && format.container == .wav { _ = sf_command(handle, Int32(SFC_RF64_AUTO_DOWNGRADE), nil, Int32(SF_TRUE)) }
        if format.sample != .f32 {
            // Samples beyond full scale are clipped, not wrapped, when converted to integers.
            _ = sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        }
        self.rf64 = rf64 || format.container != .wav
        self.handle = handle
    }

    /// Makes libsndfile rewrite the header (frame count) after every write, so the file
    /// on disk is a valid WAV up to the last write even if the process is killed.
    func updateHeaderAfterEveryWrite() {
        _ = sf_command(handle, Int32(SFC_SET_UPDATE_HEADER_AUTO), nil, Int32(SF_TRUE))
    }

    /// Writes `frames` interleaved frames.
    /// - Throws: `WAVFileError` (call "sf_writef_float") when fewer were written.
    func write(_ samples: UnsafePointer<Float>, frames: Int) throws {
        guard frames > 0 else { return }
        let size = frames * channels * MemoryLayout<Float>.size
        if !rf64 && bytes + size > FloatWAVWriter.wavDataLimit {
            throw WAVFileError(path: displayPath, call: "sf_writef_float",
                               reason: "a WAV file ends at 4 GiB (\(bytes / (channels * 4)) frames); nothing more is written")
        }
        bytes += size
        let written = sf_writef_float(handle, samples, sf_count_t(frames))
        if Int(written) != frames {
            throw WAVFileError(path: displayPath, call: "sf_writef_float",
                               reason: String(cString: sf_strerror(handle)))
        }
    }

    /// Finishes the header and closes the file (once; later calls do nothing).
    /// - Throws: `WAVFileError` (call "sf_close").
    func close() throws {
        guard let h = handle else { return }
        handle = nil
        let status = sf_close(h)
        if status != 0 {
            throw WAVFileError(path: displayPath, call: "sf_close", reason: String(cString: sf_error_number(status)))
        }
    }

    deinit { try? close() }
}

/// Records what the render thread plays: a writer thread (normal priority, never the
/// render thread) drains an `SPSCRing<Float>` of interleaved float frames into a sound
/// file in the format its name asks for, as `render -o` writes (`SoundFileFormat`): a
/// 32-bit float WAV by default (exactly the samples that were played, no conversion),
/// FLAC (24-bit), Ogg Vorbis, AIFF or CAF, libsndfile converting.
///
/// The header of a WAV, AIFF or CAF is rewritten after every write (libsndfile
/// `SFC_SET_UPDATE_HEADER_AUTO`), so if the process is killed the file is valid, holding
/// everything the writer had drained: at most one poll interval (10 ms) plus the ring's
/// fill behind the render thread. WAV limits a file to 4 GB (3.1 hours of 48 kHz stereo
/// float).
///
/// The ring must hold comfortably more than the poll interval's worth of samples (e.g.
/// 0.25 s: `SPSCRing<Float>(capacity: rate * channels / 4)`); the render thread drops whole
/// periods when it is full (`SPSCRing<Float>.dropped`).
///
/// Call `stop()` when done: the writer thread keeps the recorder alive until then.
public final class WAVRecorder: @unchecked Sendable {
    /// The file being written.
    public let path: String
    /// Output rate, frames per second.
    public let rate: Int
    /// Interleaved channels per frame.
    public let channels: Int
    /// The file's container and encoding.
    public let format: SoundFileFormat
    /// How long the writer sleeps when the ring is empty.
    public static let pollNanoseconds = 10_000_000
    /// Told once, on the writer's thread, when a write fails (a full disk): the error and
    /// the frames the closed file holds (libsndfile's count when it is opened again).
    private let onFailure: (@Sendable (WAVFileError, Int) -> Void)?

    private let ring: SPSCRing<Float>
    private let writer: FloatWAVWriter
    private let written = Atomic<Int>(0)
    private let failureBox = Mutex<WAVFileError?>(nil)
    /// The writer's event loop ("bendsynth wav"): a timer drains the ring every
    /// `pollNanoseconds`; dropped by `stop()` once the file is complete.
    private var loop: EventLoop?
    /// The writer's buffer and the samples of an incomplete frame kept at its start.
    /// Owner: the loop's thread (then `stop`'s, after the loop ended).
    private let buffer: UnsafeMutablePointer<Float>
    private let capacity: Int
    private var carried = 0
    private var closed = false

    /// Creates (truncates) `path` and starts the writer thread.
    /// - Parameters:
    ///   - path: the file to write.
    ///   - format: its container and encoding (`SoundFileFormat.forOutput(path:sample:)`).
    ///   - rate: frames per second written in the header.
    ///   - channels: interleaved channels per frame in the ring (1…1024).
    ///   - ring: the render thread's recording ring; this recorder is its only consumer.
    /// - Throws: `WAVFileError` naming `path` with `sf_strerror`'s text when the file
    ///   cannot be created; `SystemError` naming the failing call (`eventfd`,
    ///   `pthread_create`) and the file when its event loop cannot start.
    /// - Thread: setup or control.
    ///   - onFailure: told at once (writer thread) when writing fails: the error and the
    ///     frames kept; the file is closed, valid up to them, and nothing more is written.
    public init(path: String, rate: Int, channels: Int = 2, format: SoundFileFormat = .wavFloat, ring: SPSCRing<Float>,
                onFailure: (@Sendable (WAVFileError, Int) -> Void)? = nil) throws {
        precondition(rate > 0 && channels >= 1)
        self.path = path
        self.onFailure = onFailure
        self.rate = rate
        self.channels = channels
        self.ring = ring
        self.format = format
        writer = try FloatWAVWriter(path: path, displayPath: path, rate: rate, channels: channels, format: format)
        // FLAC and Ogg are streams: their header is written at the close.
        if format.container != .flac && format.container != .ogg { writer.updateHeaderAfterEveryWrite() }
        capacity = 4096 * channels
        buffer = .allocate(capacity: capacity)
        do {
            let loop = try EventLoop(name: "bendsynth wav")
            // The timer holds the recorder until the loop ends (after `stop()`).
            loop.schedule(after: UInt64(WAVRecorder.pollNanoseconds), repeating: UInt64(WAVRecorder.pollNanoseconds)) { self.drain() }
            try loop.start()
            self.loop = loop
        } catch {
            try? writer.close()
            // (The buffer goes in deinit: every stored property is set, so it runs.)
            // The call that failed (eventfd or pthread_create of the loop), and for what.
            throw SystemError(call: "\(error.call), the event loop recording '\(path)'", code: error.code)
        }
    }

    deinit { buffer.deallocate() }

    /// Frames written to the file so far. - Thread: any.
    public var framesWritten: Int { written.load(ordering: .relaxed) }

    /// The first write or close error, if any; the writer stops writing after it.
    /// - Thread: any.
    public var failure: WAVFileError? { failureBox.withLock { $0 } }

    /// Writes whatever the ring still holds, closes the file and ends the writer
    /// thread; returns when the file is complete. Call it after the render thread stopped
    /// writing to the ring (later samples are not recorded). Calling it again does nothing.
    /// - Thread: the control thread that made the recorder.
    public func stop() {
        guard let loop else { return }
        self.loop = nil
        loop.stop()  // the last timer run is over: the rest is this thread's
        drain()  // everything written before stop() goes into the file
        finish()
    }

    /// Writes what the ring holds (whole frames). - Thread: the loop's, or `stop`'s after it.
    private func drain() {
        guard !closed else { return }
        do {
            while true {
                let got = ring.read(into: buffer + carried, maxCount: capacity - carried)
                if got == 0 { break }
                let available = carried + got
                let frames = available / channels
                try writer.write(buffer, frames: frames)
                written.add(frames, ordering: .relaxed)
                carried = available - frames * channels
                if carried > 0 { buffer.update(from: buffer + frames * channels, count: carried) }
            }
        } catch {
            let failed = (error as? WAVFileError) ?? WAVFileError(path: path, call: "sf_writef_float", reason: "\(error)")
            failureBox.withLock { $0 = $0 ?? failed }
            finish()
            // What a reader finds, not what was counted: a short write may have kept part
            // of the last block, and the header was finished over it at the close.
            let kept = Self.framesInFile(path) ?? written.load(ordering: .relaxed)
            written.store(kept, ordering: .relaxed)
            onFailure?(failed, kept)
        }
    }

    /// The frames libsndfile reads in `path`, nil when it does not open.
    static func framesInFile(_ path: String) -> Int? {
        var info = SF_INFO()
        guard let h = sf_open(path, Int32(SFM_READ), &info) else { return nil }
        sf_close(h)
        return Int(info.frames)
    }

    /// Closes the file once (after the last write, or after a failed one).
    private func finish() {
        guard !closed else { return }
        closed = true
        do { try writer.close() } catch let error as WAVFileError {
            failureBox.withLock { $0 = $0 ?? error }
        } catch {}
    }
}
