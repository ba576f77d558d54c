// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// One decoder of outside bytes under fuzzing: its name (the corpus folder under
/// Fuzz/corpus/), the longest input worth trying, and the function that feeds it one
/// input and checks the invariants (a violated invariant is a `fatalError`, which
/// libFuzzer reports as a crash).
struct FuzzTarget: Sendable {
    var name: String
    /// Bytes; libFuzzer's -max_len (longer seeds are cut).
    var maxLength: Int
    var run: @Sendable (UnsafeRawBufferPointer) -> Void

    /// Every target: adding a decoder is one file with its `static let` and one line here.
    static let all: [FuzzTarget] = [
        .terminal, .evemu, .touchScript, .osc, .peerFrames, .webMessages, .midiFile, .scala, .keyboardMap, .sfz,
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    /// The target of this process (libFuzzer's callback has no context).
    nonisolated(unsafe) static var selected: FuzzTarget?

    /// Runs each file (or each file of each folder) once. Returns the exit status.
    static func replay(paths: [String]) -> Int32 {
        guard let target = selected else { return 2 }
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                FileHandle.standardError.write(Data("bendfuzz: \(path): no such file\n".utf8))
                return 2
            }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.sorted().map { path + "/" + $0 }
            } else {
                files.append(path)
            }
        }
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            data.withUnsafeBytes { target.run($0) }
        }
        print("bendfuzz \(target.name): \(files.count) inputs replayed, no invariant broken")
        return 0
    }
}

/// A broken invariant: libFuzzer saves the input and stops.
func violated(_ target: String, _ message: String) -> Never {
    fatalError("bendfuzz \(target): \(message)")
}

#if BEND_FUZZING
/// libFuzzer's entry when the program has its own `main` (libFuzzer ≥ 13).
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

extension FuzzTarget {
    /// Hands the command line without its first `dropping` arguments (after the program
    /// name) to libFuzzer, which calls the selected target with each input. Adds the
    /// target's -max_len unless one is given.
    static func runLibFuzzer(dropping: Int) -> Int32 {
        var args = [CommandLine.arguments[0]] + CommandLine.arguments.dropFirst(1 + dropping)
        if !args.contains(where: { $0.hasPrefix("-max_len=") }) { args.append("-max_len=\(selected!.maxLength)") }
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        var argc = Int32(args.count)
        return argv.withUnsafeMutableBufferPointer { buffer in
            var base = buffer.baseAddress!
            return LLVMFuzzerRunDriver(&argc, &base) { data, size in
                FuzzTarget.selected!.run(UnsafeRawBufferPointer(start: data, count: size))
                return 0
            }
        }
    }
}
#endif
