// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Synchronization
import Glibc

/// What an offline render produced.
public struct RenderSummary: Sendable, Equatable {
    /// Stereo frames rendered.
    public var frames: Int
    /// Duration, seconds (frames / rate).
    public var seconds: Double
    /// Largest absolute sample of either channel, linear (1 = full scale).
    public var peak: Float
}

/// The offline sink's file: the periods an offline render makes (the render shell,
/// BendInstrument's `OfflineRenderer`), written as a sound file that appears only when
/// the whole render succeeded, with the render's progress.
public enum RenderFile {
    /// Writes the periods `render` hands its sink (interleaved stereo float) to `path`.
    ///
    /// Written to an unnamed file in `path`'s directory (`O_TMPFILE`; where the file
    /// system has none, `.NAME.PID.RANDOM.tmp`: `UnnamedOutputFile`), linked in and
    /// renamed over `path` once complete: `path` is never left half-written, on any error
    /// `path` is untouched, and a render killed with SIGKILL leaves nothing in the folder.
    /// - Parameters:
    ///   - rate: frames per second of the output.
    ///   - format: container and encoding (default float32 WAV); `path` "-" writes it to
    ///     standard output (no temporary file).
    ///   - scriptFrames: the script's length in frames (for the progress).
    ///   - progress: called about every `RenderProgress.Meter.interval` seconds and once
    ///     at the end (on this thread) with the frames written and `scriptFrames`.
    ///   - render: renders every period into its sink; returns the frames rendered and the peak.
    /// - Throws: `WAVFileError` naming `path`: "sf_open" (e.g. the directory is missing),
    ///   "sf_writef_float", "sf_close" with libsndfile's text, "rename" with `strerror`;
    ///   or what `render` threw.
    /// - Thread: any non-real-time thread.
    public static func write(to path: String, rate: Double, format: SoundFileFormat = .wavFloat, scriptFrames: Int,
                             progress: ((RenderProgress) -> Void)? = nil,
                             _ render: (_ sink: (UnsafeBufferPointer<Float>) throws -> Void) throws -> (frames: Int, peak: Float))
        throws -> RenderSummary {
        var meter = RenderProgress.Meter(scriptFrames: scriptFrames, rate: rate, report: progress)
        if path == "-" {
            // libsndfile writes no WAV to a pipe (its header is finished by seeking back):
            // render to a temporary file, then copy it to standard output.
            let dir = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            let file = dir + "/.bendsynth-render.\(getpid()).\(UInt32.random(in: 0...UInt32.max)).wav"
            defer { unlink(file) }
            let summary = try write(to: file, rate: rate, format: format, scriptFrames: scriptFrames, progress: progress, render)
            try copyToStandardOutput(file)
            return summary
        }
        let target = try outputTarget(path)
        let file = try UnnamedOutputFile(target: target, displayPath: path)
        let writer: FloatWAVWriter
        do {
            writer = try FloatWAVWriter(path: target, displayPath: path, rate: Int(rate.rounded()), channels: 2, rf64: true, format: format,
                                        descriptor: file.descriptor)
        } catch {
            file.discard()
            throw error
        }
        temporaryPath.withLock { $0 = file.temporaryPath }
        defer { temporaryPath.withLock { $0 = nil } }
        do {
            let (frames, peak) = try render { period in
                try writer.write(period.baseAddress!, frames: period.count / 2)
                meter.advance(period.count / 2)
            }
            try writer.close()
            meter.finish()
            try file.publish(as: target, displayPath: path)
            return RenderSummary(frames: frames, seconds: Double(frames) / rate, peak: peak)
        } catch {
            try? writer.close()
            file.discard()
            throw error
        }
    }

    /// Copies `file` to descriptor 1 (EINTR retried, short writes continued).
    static func copyToStandardOutput(_ file: String) throws {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw WAVFileError(path: "standard output", call: "open", reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw WAVFileError(path: "standard output", call: "read", reason: String(cString: strerror(errno))) }
            if n == 0 { return }
            var done = 0
            while done < n {
                let w = buffer.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + done, n - done) }
                if w < 0 && errno == EINTR { continue }
                guard w > 0 else { throw WAVFileError(path: "standard output", call: "write", reason: String(cString: strerror(errno))) }
                done += w
            }
        }
    }

    /// The temporary file of the render in progress, for `removeTemporaryFile()`.
    static let temporaryPath = Mutex<String?>(nil)

    /// Removes the half-written temporary file of the render in progress, if any (for a
    /// SIGINT/SIGTERM handler: `path` itself is untouched until the final rename).
    /// - Thread: any.
    public static func removeTemporaryFile() {
        temporaryPath.withLock { path in
            if let p = path { unlink(p) }
            path = nil
        }
    }

    /// Where the WAV really goes: `path`, or the file a symbolic link at `path` points to.
    /// - Throws: `WAVFileError` when `path` exists and is not a regular file (a directory,
    ///   a device such as /dev/null): the render would replace it.
    static func outputTarget(_ path: String) throws -> String {
        var target = path
        var info = stat()
        // Follow links (also one whose file does not exist yet), at most 16 deep.
        for _ in 0..<16 {
            guard lstat(target, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK,
                  let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: target) else { break }
            target = destination.hasPrefix("/") ? destination
                : URL(fileURLWithPath: target).deletingLastPathComponent().appendingPathComponent(destination).path
        }
        if stat(target, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
            throw WAVFileError(path: path, call: "stat", reason: "exists and is not a regular file; expected a WAV file path")
        }
        return target
    }
}
