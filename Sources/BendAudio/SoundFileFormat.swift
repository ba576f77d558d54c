// SPDX-License-Identifier: GPL-3.0-or-later
import CSndFile

/// The container and sample encoding of a rendered file, chosen by its extension and
/// `--format`: `.wav` (float32 by default; RF64 past 4 GiB), `.flac` (24-bit by default),
/// `.ogg` (Vorbis), `.aiff`/`.aif`, `.caf` (float32 by default). `-` is WAV on a pipe.
public struct SoundFileFormat: Equatable, Sendable, CustomStringConvertible {
    public enum Container: String, Sendable { case wav = "WAV", flac = "FLAC", ogg = "Ogg Vorbis", aiff = "AIFF", caf = "CAF" }
    public enum Sample: String, Sendable, CaseIterable { case s16, s24, f32, vorbis }

    public var container: Container
    public var sample: Sample

    public var description: String { container == .ogg ? container.rawValue : "\(container.rawValue) \(sample.rawValue)" }

    /// Extensions known, lower case, with their container.
    public static let extensions: [(String, Container)] = [("wav", .wav), ("flac", .flac), ("ogg", .ogg), ("oga", .ogg), ("aiff", .aiff), ("aif", .aiff), ("caf", .caf)]

    /// The format for `path` (`-`: standard output, WAV) and `--format` (nil: the
    /// container's default). `standardOutput`: whether `-` may be given (`render -o`, not
    /// a recording), and so offered in the error.
    /// - Throws: `SoundFileFormatError` naming the extension or the sample format refused.
    public static func forOutput(path: String, sample: String?, standardOutput: Bool = true) throws -> SoundFileFormat {
        let container: Container
        if path == "-" && standardOutput {
            container = .wav
        } else {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            let ext = name.contains(".") ? String(name.split(separator: ".").last!).lowercased() : ""
            guard let found = extensions.first(where: { $0.0 == ext })?.1 else {
                throw SoundFileFormatError(message: "cannot tell the format of '\(path)' from its extension '\(ext.isEmpty ? "(none)" : "." + ext)'; expected .wav, .flac, .ogg, .aiff, .aif or .caf\(standardOutput ? " (or - for WAV on standard output)" : "")")
            }
            container = found
        }
        var format = SoundFileFormat(container: container, sample: container == .flac ? .s24 : container == .ogg ? .vorbis : .f32)
        if let sample {
            guard let s = Sample(rawValue: sample), s != .vorbis else {
                throw SoundFileFormatError(message: "option '--format': expected s16, s24 or f32, got '\(sample)'")
            }
            if container == .ogg { throw SoundFileFormatError(message: "option '--format': Ogg Vorbis is compressed; --format applies to .wav, .flac, .aiff and .caf") }
            if container == .flac && s == .f32 { throw SoundFileFormatError(message: "option '--format f32': FLAC holds integer samples; expected s16 or s24") }
            format.sample = s
        }
        return format
    }

    /// libsndfile's format bits (`SF_INFO.format`); `rf64` for a WAV finished in one go.
    func sfFormat(rf64: Bool) -> Int32 {
        let major: Int32
        switch container {
        case .wav: major = Int32(rf64 ? SF_FORMAT_RF64 : SF_FORMAT_WAV)
        case .flac: major = Int32(SF_FORMAT_FLAC)
        case .ogg: major = Int32(SF_FORMAT_OGG)
        case .aiff: major = Int32(SF_FORMAT_AIFF)
        case .caf: major = Int32(SF_FORMAT_CAF)
        }
        let subtype: Int32
        switch sample {
        case .s16: subtype = Int32(SF_FORMAT_PCM_16)
        case .s24: subtype = Int32(SF_FORMAT_PCM_24)
        case .f32: subtype = Int32(SF_FORMAT_FLOAT)
        case .vorbis: subtype = Int32(SF_FORMAT_VORBIS)
        }
        return major | subtype
    }

    public static let wavFloat = SoundFileFormat(container: .wav, sample: .f32)
}

/// An output name or `--format` that names no format libsndfile writes here.
public struct SoundFileFormatError: Error, CustomStringConvertible, Equatable {
    public var message: String
    public var description: String { message }
}
