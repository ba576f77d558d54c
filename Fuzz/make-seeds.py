#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the committed seed corpus of the fuzz targets (Fuzz/corpus/TARGET/): the real
inputs of ../shared/realworld/ copied in (a .desc + .events pair joined into one file, a
datagram sequence also joined with the separator of Sources/BendFuzz/FuzzInput.swift),
the test fixtures, and small hand-made inputs of each format.
usage: Fuzz/make-seeds.py [REALWORLD_DIR]   (default ../shared/realworld)"""
import glob, os, re, shutil, struct, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RW = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "realworld")
OUT = os.path.join(ROOT, "Fuzz", "corpus")
SEP = b"\xff\xfe\n\n"   # FuzzInput.separator


def put(target, name, data):
    os.makedirs(os.path.join(OUT, target), exist_ok=True)
    with open(os.path.join(OUT, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def copy(target, path):
    put(target, os.path.basename(path), open(path, "rb").read())


# terminal: realworld captures, plus keys, mouse buttons, focus, kitty, X10.
for p in sorted(glob.glob(f"{RW}/terminal/*.bin")):
    copy("terminal", p)
E = "\x1b"
put("terminal", "keys-and-buttons", f"asdf{E}[<0;10;5M{E}[<0;12;6M{E}[<0;12;6m{E}[<1;20;8M{E}[<0;20;8m{E}[<2;30;9M{E}[<2;30;9m q")
put("terminal", "focus-while-held", f"a{E}[<0;10;5M{E}[O{E}[I{E}[<0;10;5m")
put("terminal", "kitty-keys", f"{E}[?11u{E}[97;1:1u{E}[97;1:2u{E}[97;1:3u{E}[32;1:1u{E}[32;1:3u{E}[1;1:1A")
put("terminal", "x10-urxvt", f"{E}[M !!{E}[M#!!{E}[32;10;5M{E}[35;10;5M{E}[200~pasted{E}[<0;1;1M{E}[201~")

# evemu: realworld recordings (pairs joined) and the evdev test fixtures, each cut after
# the last SYN_REPORT line within EVEMU_MAX bytes (the target's -max_len: a recording
# cut inside a frame does not parse, and longer inputs only slow the fuzzer down).
EVEMU_MAX = 16384


def evemu(name, data):
    if len(data) > EVEMU_MAX:
        cut = data[:EVEMU_MAX]
        ends = [m.end() for m in re.finditer(rb"^E: \S+ 0+ 0+ 0+\b[^\n]*\n", cut, re.M)]
        data = cut[:ends[-1]]
    put("evemu", name, data)


for p in sorted(glob.glob(f"{RW}/evdev/*.evemu")) + sorted(glob.glob(f"{ROOT}/Tests/BendEvdevTests/Fixtures/*.evemu")):
    evemu(os.path.basename(p), open(p, "rb").read())
for desc in sorted(glob.glob(f"{RW}/evdev/*.desc")):
    stem = desc[:-len(".desc")]
    for events in sorted(glob.glob(stem + "*.events")):
        d = open(desc, "rb").read()
        evemu(os.path.basename(events) + ".joined", d + (b"" if d.endswith(b"\n") else b"\n") + open(events, "rb").read())

# touch-script: the demo, every event type, pitched touches.
copy("touch-script", f"{ROOT}/Assets/demo.jsonl")
put("touch-script", "every-type.jsonl", "\n".join([
    '{"t": 0.0, "type": "down", "id": 1, "x": 0.25, "y": 0.8}',
    '{"t": 0.0, "type": "tilt", "value": -1.0}',
    '{"t": 0.5, "type": "move", "id": 1, "x": 0.5, "y": 0.8}',
    '{"t": 1.0, "type": "sustain", "on": true}',
    '{"t": 1.0, "type": "up", "id": 1}',
    '{"t": 1.5, "type": "sustain", "on": false}',
    '{"t": 2.0, "type": "down", "id": 2, "ratio": 1.5, "gain": 0.8, "y": 0.5}',
    '{"t": 2.5, "type": "up", "id": 2}']) + "\n")


# osc: realworld datagrams, each sequence joined, bendsynth's own messages.
def osc_string(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 4)


def osc(address, types, *args):
    out = osc_string(address) + osc_string("," + types)
    for t, a in zip(types, args):
        out += {"i": lambda v: struct.pack(">i", v), "f": lambda v: struct.pack(">f", v), "s": osc_string}[t](a)
    return out


def bundle(*messages):
    out = osc_string("#bundle") + struct.pack(">Q", 1)
    for m in messages:
        out += struct.pack(">i", len(m)) + m
    return out


for p in sorted(glob.glob(f"{RW}/other/*.osc")):
    copy("osc", p)
for case in ("RW-47", "RW-48"):
    parts = [open(p, "rb").read() for p in sorted(glob.glob(f"{RW}/other/{case}_*.osc"))]
    if parts:
        put("osc", f"{case}-sequence", SEP.join(parts))
put("osc", "bendsynth-touches", SEP.join([
    osc("/bendsynth/touch", "iff", 1, 0.5, 0.5), osc("/bendsynth/touch", "iff", 1, 0.6, 0.4),
    osc("/bendsynth/tilt", "f", 0.5), osc("/bendsynth/release", "i", 1), osc("/bendsynth/voices", ""),
    osc("/bendsynth/xy/1", "ff", 0.2, 0.3), osc("/bendsynth/xy/1/z", "f", 0.0)]))
put("osc", "tuio11-bundle", bundle(osc("/tuio/2Dcur", "s", "source"), osc("/tuio/2Dcur", "si", "alive", 3),
                                   osc("/tuio/2Dcur", "sifffff", "set", 3, 0.5, 0.5, 0.0, 0.0, 0.0),
                                   osc("/tuio/2Dcur", "si", "fseq", 7)))


# peer-frames: one frame of each message type, as one stream.
def frame(body):
    return struct.pack(">H", len(body)) + body


def pstr(s, n=1):
    b = s.encode()
    return (struct.pack(">B", len(b)) if n == 1 else struct.pack(">H", len(b))) + b


frames = [
    frame(bytes([1, 1, 1, 32]) + bytes(range(32))),
    frame(bytes([2, 1, 1]) + struct.pack(">QHI", 42, 9000, 7) + pstr("phone") + bytes([0])),
    frame(bytes([3]) + struct.pack(">QHI", 43, 9001, 8) + pstr("studio")),
    frame(bytes([4, 1]) + pstr("busy")),
    frame(bytes([16]) + struct.pack(">IBffQ", 1, 0, 0.5, 0.5, 1000)),
    frame(bytes([16]) + struct.pack(">IBffQ", 1, 1, 0.6, 0.4, 2000)),
    frame(bytes([16]) + struct.pack(">IBffQ", 1, 2, 0.6, 0.4, 3000)),
    frame(bytes([17]) + struct.pack(">fQ", -0.5, 4000)),
    frame(bytes([18]) + pstr("hello ✓", 2)),
    frame(bytes([32]) + struct.pack(">IQ", 5, 5000)),
    frame(bytes([33]) + struct.pack(">IQIH", 5, 5000, 0, 3)),
    frame(bytes([48, 0]) + pstr("bye")),
]
put("peer-frames", "every-type", b"".join(frames))
for i, f in enumerate(frames):
    put("peer-frames", f"frame-{f[2]}-{i}", f)

# web-messages: the page's messages (one WebSocket message per separator).
put("web-messages", "pad", SEP.join(m.encode() for m in [
    "d 1 0.5 0.5 10.5\nm 1 0.6 0.5 20", "t 0.25", "s 1", "u 1 0.6 0.5 30", "s 0", "p 123.5",
    "d 2 0.1 0.9 40\nd 3 0.9 0.1 41", "m 2 0.2 0.8 50"]))
put("web-messages", "hello-again", b"h fuzz-token-0123456789\nd 7 0 1 0")

# midi-file: the MIDI test fixtures (mido) and realworld/midi.
for p in sorted(glob.glob(f"{ROOT}/Tests/BendMIDITests/Fixtures/*.mid")) + sorted(glob.glob(f"{RW}/midi/*.midi")):
    copy("midi-file", p)

# scala: realworld/scales and small ones.
for p in sorted(glob.glob(f"{RW}/scales/*.scl")):
    copy("scala", p)
put("scala", "ratios.scl", "! ratios.scl\nJust major\n 7\n!\n 9/8\n 5/4\n 4/3\n 3/2\n 5/3\n 15/8\n 2/1\n")
put("scala", "cents.scl", "Bohlen-Pierce\n13\n146.3\n292.6\n438.9\n585.2\n731.5\n877.8\n1024.1\n1170.4\n1316.7\n1463.0\n1609.3\n1755.6\n3/1\n")
# kbm: the tests' keyboard mappings (good and malformed).
for p in sorted(glob.glob(os.path.join(ROOT, "Tests/BendMIDITests/Fixtures/kbm/**/*.kbm"), recursive=True)):
    copy("kbm", p)
# sfz: the format's constructs (headers and inheritance, #define, #include, comments,
# values with spaces, note names, loop points, round robin).
put("sfz", "eight.sfz", "<control> default_path=./\n<global> loop_mode=loop_continuous\n"
    + "".join(f"<region> sample=z{k}.wav lokey={44 + 4 * k} hikey={47 + 4 * k} pitch_keycenter={46 + 4 * k}\n" for k in range(8)))
put("sfz", "everything.sfz", "// comment\n#define $KEY c#4\n/* block\n comment */\n<global> volume=-6 ampeg_release=0.5\n"
    "<master> tune=5\n<group> lovel=1 hivel=64 seq_length=2\n<region> sample=My Piano/C 4.wav key=$KEY seq_position=1 pan=-30\n"
    "<region> sample=b.wav lokey=db4 hikey=E5 pitch_keycenter=sample offset=100 end=9999 loop_mode=loop_sustain loopstart=200 loopend=900 seq_position=2\n"
    "#include \"part.sfz\"\n<curve> v000=0\n<region> sample=c.wav amp_veltrack=0 ampeg_attack=0.1 ampeg_decay=0.2 ampeg_sustain=50 transpose=-12\n")
put("sfz", "loop.sfz", "#include \"root.sfz\"\n")
