// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
@testable import BendSFZ

/// The SFZ text read as sfizz reads it: headers and inheritance, #define, #include,
/// comments, values that run to the next opcode, note names, and every malformed kind
/// named with its file and line.
final class SFZInstrumentTests: XCTestCase {
    /// An instrument of the given files (name → text), read from "root.sfz" in folder "/i".
    func instrument(_ files: [String: String], root: String = "root.sfz") throws -> SFZInstrument {
        let document = try SFZDocument.read(path: "/i/" + root, directory: "/i") { path in
            guard let text = files[String(path.dropFirst(3))] else { throw Missing() }
            return Array(text.utf8)
        }
        return try SFZInstrument.make(document, directory: "/i")
    }

    struct Missing: Error, CustomStringConvertible { var description: String { "No such file or directory" } }

    /// The error `files` give, as "file:line: message".
    func failure(_ files: [String: String]) -> String {
        do {
            _ = try instrument(files)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    func testHeadersInheritAndRegionsOverride() throws {
        let sfz = """
        // a comment
        <control> default_path=samples/
        <global> volume=-6 ampeg_release=0.5
        <group> lovel=1 hivel=64 tune=10
        <region> sample=Piano C4.wav key=60
        <region> sample=d4.wav lokey=c#4 hikey=E4 pitch_keycenter=d4 tune=-5 /* block
        comment */ <group> lovel=65 <region> sample=loud.wav lokey=0 hikey=127 loop_mode=loop_sustain loopstart=10 loopend=99
        """
        let i = try instrument(["root.sfz": sfz])
        XCTAssertEqual(i.regions.count, 3)
        let a = i.regions[0], b = i.regions[1], c = i.regions[2]
        XCTAssertEqual(a.sample, "/i/samples/Piano C4.wav")
        XCTAssertEqual([a.lokey, a.hikey, a.pitchKeycenter], [60, 60, 60])
        XCTAssertEqual(a.volume, -6); XCTAssertEqual(a.release, 0.5); XCTAssertEqual(a.tune, 10)
        XCTAssertEqual([a.lovel, a.hivel], [1, 64])
        XCTAssertEqual([b.lokey, b.hikey, b.pitchKeycenter], [61, 64, 62])
        XCTAssertEqual(b.tune, -5)
        XCTAssertEqual(b.location, SFZLocation(file: "/i/root.sfz", line: 6))
        // The second <group> clears the first's: no tune, the velocities its own.
        XCTAssertEqual([c.lovel, c.hivel], [65, 127])
        XCTAssertEqual(c.tune, 0)
        XCTAssertEqual(c.volume, -6)
        XCTAssertEqual(c.loopMode, .loopSustain)
        XCTAssertEqual([c.loopStart, c.loopEnd], [10, 99])
        XCTAssertEqual(c.location.line, 7)
        XCTAssertNil(i.ignoredNote)
    }

    /// A later `<control>` starts again without `default_path` (issue 37, item 4; sfizz's
    /// "default path reset" case); the `<global>` it follows keeps its opcodes.
    func testANewControlHeaderResetsTheDefaultPath() throws {
        let i = try instrument(["root.sfz": """
            <control> default_path=a/
            <global> volume=-3
            <region> sample=one.wav
            <control>
            <region> sample=two.wav
            <control> default_path=b/
            <region> sample=three.wav
            """])
        XCTAssertEqual(i.regions.map(\.sample), ["/i/a/one.wav", "/i/two.wav", "/i/b/three.wav"])
        XCTAssertEqual(i.regions.map(\.volume), [-3, -3, -3])
    }

    /// Layers (issue 37): a second region on the same keys and velocities is named as
    /// stacked (it does not sound yet); round robins and velocity layers are not stacks.
    func testStackedRegionsAreNamed() throws {
        let i = try instrument(["root.sfz": """
            <region> sample=close.wav lokey=60 hikey=64
            <region> sample=room.wav lokey=62 hikey=70
            <region> sample=soft.wav key=72 hivel=63
            <region> sample=loud.wav key=72 lovel=64
            <group> seq_length=2 key=74
            <region> sample=rr1.wav seq_position=1
            <region> sample=rr2.wav seq_position=2
            <region> sample=rr2b.wav seq_position=2
            """])
        XCTAssertEqual(i.stackedRegions.map(\.line), [2, 8])
    }

    /// Embedded sample data (`<sample>` with `base64data`, which may hold "//", or raw
    /// `data` with "$"): read as data, not as comments or variables; a region that plays
    /// it is refused saying what it is (issue 37, item 3).
    func testEmbeddedSampleDataIsNamedNotASyntaxError() {
        for data in ["base64data=UklGRg//AAB+/w==", "data=$$$\u{01}\u{02}$$$"] {
            XCTAssertEqual(failure(["root.sfz": "<sample> name=x.wav \(data)\n<region> sample=x.wav key=60\n"]),
                           "/i/root.sfz:2: sample=x.wav is embedded in the instrument (<sample> at /i/root.sfz:1), which bendsynth does not read yet; expected it as a file beside the instrument",
                           data)
        }
    }

    func testDefinesIncludesAndBackslashes() throws {
        let files = [
            "root.sfz": "#define $KEY c4 \n#define $DIR low\n<group> key=$KEY\n#include \"parts\\strings.sfz\"\n<region> sample=$DIR\\b.wav",
            "parts/strings.sfz": "<region> sample=a.wav\n#define $KEY 72\n",
        ]
        let i = try instrument(files)
        XCTAssertEqual(i.regions.map(\.sample), ["/i/a.wav", "/i/low/b.wav"])
        XCTAssertEqual(i.regions.map(\.lokey), [60, 60])  // the <group>'s key, read before the redefinition
        XCTAssertEqual(i.regions[0].location.file, "/i/parts/strings.sfz")
    }

    func testUnknownOpcodesAndHeadersAreNamedOnceWithTheirLines() throws {
        let sfz = "<region> sample=a.wav amp_veltrack=0 fil_type=lpf_2p\n<curve> curve_index=1 v000=0\n<region> sample=b.wav amp_veltrack=50\n"
        let i = try instrument(["root.sfz": sfz])
        XCTAssertEqual(i.regions.count, 2)
        XCTAssertEqual(i.ignoredNote, "not played, ignored: <curve> (line 2), amp_veltrack (line 1), fil_type (line 1)")
    }

    /// A misspelt header: the note says its region is skipped (it rendered silent where
    /// the note named only the header).
    func testAMisspeltHeaderSaysWhatItSkips() throws {
        let i = try instrument(["root.sfz": "<region> sample=a.wav key=60\n<regoin> sample=b.wav key=61\n"])
        XCTAssertEqual(i.regions.map(\.lokey), [60])
        XCTAssertEqual(i.ignoredNote, "not played, ignored: <regoin> (line 2: not an SFZ header; its opcodes up to the next header are skipped with it)")
    }

    func testNoteNamesAndNumbersAsSfizzReadsThem() {
        XCTAssertEqual(SFZValue.key("c4"), 60)
        XCTAssertEqual(SFZValue.key("C#4"), 61)
        XCTAssertEqual(SFZValue.key("db4"), 61)
        XCTAssertEqual(SFZValue.key("a-1"), 9)
        XCTAssertEqual(SFZValue.key("g9"), 127)
        XCTAssertNil(SFZValue.key("g#9"))
        XCTAssertNil(SFZValue.key("e#4"))
        XCTAssertNil(SFZValue.key("h4"))
        XCTAssertNil(SFZValue.key("db888888888888888888"), "an octave far out of range (it overflowed: make fuzz)")
        XCTAssertEqual(SFZValue.integer("60abc"), 60)
        XCTAssertEqual(SFZValue.real("-12.5dB"), -12.5)
        XCTAssertNil(SFZValue.real("."))
    }

    func testEveryMalformedKindNamesFileAndLine() {
        let cases: [(String, String)] = [
            ("<region> sample=a.wav\n<regio", "/i/root.sfz:2: unterminated header '<regio'; expected '>' on the same line"),
            ("<region> sample=a.wav\n  lokey=\n", "/i/root.sfz:2: opcode 'lokey' has no value; expected lokey=value"),
            ("<region> sample=a.wav lokey= hikey=5", "/i/root.sfz:1: opcode 'lokey' has no value; expected lokey=value"),
            ("<region> sample=a.wav\nlokey 60", "/i/root.sfz:2: opcode 'lokey' has no '='; expected lokey=value"),
            ("<region> sample=a.wav\n\nkey=60 key", "/i/root.sfz:3: opcode 'key' has no '='; expected key=value"),
            ("<region> sample=a.wav key=60 hikey", "/i/root.sfz:1: opcode 'hikey' has no '='; expected hikey=value"),
            ("<region> lokey=60", "/i/root.sfz:1: <region> has no sample; expected sample=FILE in it or in a header above it"),
            ("<region> sample=a.wav lokey=x9", "/i/root.sfz:1: lokey=x9: expected a key 0…127 or a note name such as c#4"),
            ("<region> sample=a.wav loop_mode=forever", "/i/root.sfz:1: loop_mode=forever: expected no_loop, one_shot, loop_continuous or loop_sustain"),
            ("<region>\nsample=a.wav seq_length=2 seq_position=3", "/i/root.sfz:1: <region>: seq_position=3 is past seq_length=2; expected 1…2"),
            ("/* open\n<region> sample=a.wav", "/i/root.sfz:1: unterminated comment '/*'; expected '*/' before the end of the file"),
            ("#include \"loop.sfz\"", "/i/loop.sfz:1: #include \"root.sfz\" is an include loop (/i/root.sfz → /i/loop.sfz → /i/root.sfz); a file may not include itself"),
            ("\n#include \"gone.sfz\"", "/i/root.sfz:2: #include \"gone.sfz\": cannot read '/i/gone.sfz': No such file or directory"),
            ("<region> sample=$X.wav", "/i/root.sfz:1: variable $X is not defined; expected #define $X value before it"),
            ("#define $A $A$A\n<region> sample=$A", "/i/root.sfz:2: variables in '$A' expand to more than 65536 characters"),
            ("#define X 1", "/i/root.sfz:1: #define needs a variable; expected #define $NAME value"),
            ("#pragma once", "/i/root.sfz:1: unknown directive '#pragma'; expected #define or #include"),
            ("<>", "/i/root.sfz:1: header '<>' is not a name; expected <region>, <group>, <master>, <global> or <control>"),
            ("<region> ? sample=a.wav", "/i/root.sfz:1: unexpected '?'; expected an opcode (name=value), a <header>, a #define or #include, or a comment"),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(failure(["root.sfz": text, "loop.sfz": "#include \"root.sfz\""]), expected, text)
        }
    }

    func testAByteOrderMarkAndCRLFLinesRead() throws {
        let i = try instrument(["root.sfz": "\u{FEFF}<region> sample=a.wav key=60\r\n<region> sample=b.wav key=61\r\n"])
        XCTAssertEqual(i.regions.map(\.sample), ["/i/a.wav", "/i/b.wav"])
        XCTAssertEqual(i.regions.map(\.lokey), [60, 61])
    }

    func testAValueRunsToTheNextOpcodeAndKeepsItsSpaces() throws {
        let i = try instrument(["root.sfz": "<region> sample=My Piano/C 4.wav   pan=-30 // note\n<region>sample=x.wav<region> sample=y.wav"])
        XCTAssertEqual(i.regions.map(\.sample), ["/i/My Piano/C 4.wav", "/i/x.wav", "/i/y.wav"])
        XCTAssertEqual(i.regions[0].pan, -30)
    }
}
