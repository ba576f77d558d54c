// SPDX-License-Identifier: GPL-3.0-or-later
// bendfuzz: one libFuzzer target per decoder of outside bytes (`FuzzTarget.all`).
//
//   bendfuzz TARGET [libFuzzer options] [CORPUS_DIR…]   (the fuzz build, `make fuzz`)
//   bendfuzz TARGET FILE|DIR…                            (any build: replay inputs)
//   bendfuzz --list                                      (the targets' names)
//
// The fuzz build (Fuzz/fuzz.sh) compiles every module with AddressSanitizer and
// libFuzzer's coverage instrumentation and -DBEND_FUZZING, and links libFuzzer without
// its `main`: this `main` picks the target and hands libFuzzer the rest of the command
// line. The ordinary build (`swift build`) replays files through a target, without
// sanitizers: a crash found by the fuzzer is reproduced with it.
import Foundation

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "--list" {
    print(FuzzTarget.all.map(\.name).joined(separator: "\n"))
    exit(0)
}
guard arguments.count >= 2, let target = FuzzTarget.named(arguments[1]) else {
    let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
    FileHandle.standardError.write(Data("usage: bendfuzz TARGET [libFuzzer options | FILE…]; targets: \(names)\n".utf8))
    exit(2)
}
FuzzTarget.selected = target

#if BEND_FUZZING
exit(FuzzTarget.runLibFuzzer(dropping: 1))
#else
exit(FuzzTarget.replay(paths: Array(arguments.dropFirst(2))))
#endif
