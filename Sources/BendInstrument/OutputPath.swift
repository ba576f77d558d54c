// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendSystem
import Foundation
import Glibc

/// The one check of a file a command will write (`render -o`, `replay -o`/`--touches`,
/// `play --record*`), made before any work, so every command answers a bad output path
/// alike: exit 2 naming the option and the path. Failures while writing stay exit 1.
///
/// No command writes over one of its inputs (the script, the recording, the tone, a
/// Scala file, a key or certificate file, the config file — every file it reads, also
/// those read without an option, `inputs`): the output is compared with each input as a
/// file (device and inode, so another spelling, a symbolic link or a hard link of the
/// input is caught) or, for a file the command will make in this run (the default shared
/// key, the default web certificate and key), by its canonical path; the command stops
/// with exit 2 before reading or writing anything.
public enum OutputPath {
    /// - Throws: `InstrumentError(.input)` when `path` is a folder or a device, or its
    ///   folder is missing or no file can be made in it. `-` (standard output) passes.
    public static func check(_ path: String, option: String, command: String) throws {
        guard path != "-" else { return }
        var info = stat()
        if stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
            let what = (info.st_mode & S_IFMT) == S_IFDIR ? "a folder" : "not a regular file"
            throw InstrumentError(.input, "\(command): \(option) '\(path)' is \(what); expected a file name")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw InstrumentError(.input, "\(command): \(option) '\(path)': the folder '\(folder)' does not exist")
        }
        guard access(folder, W_OK) == 0 else {
            throw InstrumentError(.input, "\(command): \(option) '\(path)': cannot write in the folder '\(folder)' (\(String(cString: strerror(errno))))")
        }
        // Writable by its mode is not enough (/proc, a read-only mount, root's access()):
        // a file made there and removed at once says whether one can be.
        let probe = (folder == "/" ? "" : folder) + "/.bendsynth-probe-\(getpid())"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = errno == EEXIST ? nil : String(cString: strerror(errno))
            if let reason { throw InstrumentError(.input, "\(command): \(option) '\(path)': cannot make a file in the folder '\(folder)' (\(reason))") }
            return
        }
        close(fd)
        unlink(probe)
    }

    /// An existing file: its device and inode (symbolic links followed).
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    static func identity(_ path: String) -> Identity? {
        var info = stat()
        guard path != "-", stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Standard output's file when it is a regular file (not a pipe, a terminal, /dev/null).
    static var standardOutput: Identity? {
        var info = stat()
        guard fstat(1, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// True when `a` and `b` are the same file: the same existing file, or the same
    /// path once made absolute and tidied (files that do not exist yet).
    public static func same(_ a: String, _ b: String) -> Bool {
        if let x = identity(a), let y = identity(b) { return x == y }
        return URL(fileURLWithPath: a).standardized == URL(fileURLWithPath: b).standardized
    }

    /// `path` with symbolic links resolved: the file's own real path when it exists, else
    /// its folder's real path and its name (a file not made yet), else `path` tidied.
    static func canonical(_ path: String) -> String {
        if let real = realPath(path) { return real }
        let url = URL(fileURLWithPath: path)
        if let folder = realPath(url.deletingLastPathComponent().path) {
            return (folder == "/" ? "" : folder) + "/" + url.lastPathComponent
        }
        return url.standardized.path
    }

    private static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// The files a command reads: its operands, the values of its file options (`FILE`,
    /// `X.jsonl`, … in its specs) except `outputs`, the config files read (`--config=FILE`,
    /// put in front by `ConfigFile.arguments` for each file read: given or the default
    /// ones), the default tone when the command takes `--tone` and none is given, and
    /// `implicit` (files a command reads without an option: play's default shared key and
    /// web certificate, also when this run will make them) — the others when they exist.
    public static func inputs(options: [(String, String?)], operands: [String], specs: [OptionSpec], outputs: Set<String>,
                       implicit: [(what: String, path: String)] = []) -> [(what: String, path: String)] {
        var found = operands.map { (what: "the input", path: $0) }
        for (name, value) in options {
            guard let value, !outputs.contains(name) else { continue }
            if name == "config" {
                found.append((what: "the config file", path: value))
                continue
            }
            guard let spec = specs.first(where: { $0.long == name }),
                  spec.valueKind == .file || spec.value?.contains("FILE") == true else { continue }
            found.append((what: "the --\(name) file", path: value))
        }
        if specs.contains(where: { $0.long == "tone" }), !options.contains(where: { $0.0 == "tone" }),
           let tone = try? DefaultTone.path() {
            found.append((what: "the default tone", path: tone))
        }
        return found.filter { identity($0.path) != nil } + implicit
    }

    /// - Throws: `InstrumentError(.input)` when `path` is one of `inputs`: "render: -o
    ///   'same.jsonl' is the input 'same.jsonl'; writing it would destroy it: give
    ///   another file name".
    public static func checkNotInput(_ path: String, option: String, command: String, inputs: [(what: String, path: String)]) throws {
        if path == "-" {  // standard output: a regular file there (`1<>io.jsonl`) may be an input
            guard let output = standardOutput,
                  let input = inputs.first(where: { identity($0.path) == output }) else { return }
            throw InstrumentError(.input, "\(command): \(option) '-' is standard output, which is \(input.what) '\(input.path)'; writing it would destroy it: give another file name")
        }
        let output = identity(path), outputPath = canonical(path)
        let isInput = { (input: String) -> Bool in
            if let output, let other = identity(input) { return other == output }
            return canonical(input) == outputPath  // a file the command will make (the default key)
        }
        if let input = inputs.first(where: { isInput($0.path) }) {
            let spelled = input.path == path ? "" : " (as '\(input.path)')"
            throw InstrumentError(.input, "\(command): \(option) '\(path)' is \(input.what)\(spelled); writing it would destroy it: give another file name")
        }
    }

    /// Each of `outputs` (option, path), the files a command will write: no two naming
    /// one file, each one that may be written (`check`) and none of `inputs`.
    /// - Throws: `UsageError` for two options naming one file; as `check`, `checkNotInput`.
    public static func checkAll(_ outputs: [(option: String, path: String)], command: String,
                                inputs: [(what: String, path: String)]) throws {
        for (i, a) in outputs.enumerated() {
            if let b = outputs[(i + 1)...].first(where: { same($0.path, a.path) }) {
                throw UsageError("\(command): \(a.option) and \(b.option) name the same file '\(a.path)'")
            }
        }
        for (option, path) in outputs {
            try check(path, option: option, command: command)
            try checkNotInput(path, option: option, command: command, inputs: inputs)
        }
    }
}

extension Recordings {
    /// A live take's files checked before anything starts (`OutputPath.checkAll`), and
    /// the format `sound`'s name asks for (its extension, as `render -o`).
    /// - Parameter standardOutput: why `--record -` is refused, in the front end's words.
    /// - Throws: `UsageError` for an extension no format is written in, or `-`; as
    ///   `OutputPath.checkAll`.
    public func check(command: String, standardOutput: String, inputs: [(what: String, path: String)]) throws {
        try OutputPath.checkAll(requested, command: command, inputs: inputs)
        guard let sound else { return }
        guard sound != "-" else { throw UsageError("\(command): --record: \(standardOutput)") }
        do { _ = try SoundFileFormat.forOutput(path: sound, sample: nil, standardOutput: false) } catch {
            throw UsageError("\(command): --record: \(error)")
        }
    }
}
