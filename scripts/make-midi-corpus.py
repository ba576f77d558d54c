#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the MIDI file corpus of Tests/BendMIDITests/Fixtures with mido (PyPI), a MIDI
library of its own: files made by another program than bendsynth's writer.

    make midi-corpus        # runs this in the .build/mido venv

Each file's expected notes (start, end in seconds; frequency in Hz with the default
tone, A4 = 440 Hz at --tone-note 69) are written beside it as FILE.expected.json.
"""
import json, os, sys
import mido

out = sys.argv[1] if len(sys.argv) > 1 else "Tests/BendMIDITests/Fixtures"
A4 = 440.0

def hz(semitones_from_a4):
    return A4 * 2 ** (semitones_from_a4 / 12)

def save(mid, name, expected):
    path = os.path.join(out, name)
    mid.save(path)
    with open(path + ".expected.json", "w") as f:
        json.dump({"notes": expected}, f, indent=1)
        f.write("\n")

# 1. Format 0, 480 ticks/quarter, a tempo change mid-file (120 → 60 bpm); mido writes
#    running status for repeated statuses.
mid = mido.MidiFile(type=0, ticks_per_beat=480)
t = mido.MidiTrack(); mid.tracks.append(t)
t.append(mido.MetaMessage("set_tempo", tempo=500000, time=0))
t.append(mido.Message("note_on", channel=0, note=69, velocity=100, time=0))
t.append(mido.Message("note_on", channel=0, note=69, velocity=0, time=480))    # 0.5 s
t.append(mido.Message("note_on", channel=0, note=81, velocity=100, time=0))
t.append(mido.Message("note_off", channel=0, note=81, velocity=0, time=480))   # 1.0 s
t.append(mido.MetaMessage("set_tempo", tempo=1000000, time=0))
t.append(mido.Message("note_on", channel=0, note=57, velocity=90, time=0))
t.append(mido.Message("note_on", channel=0, note=57, velocity=0, time=480))    # 2.0 s
t.append(mido.Message("note_on", channel=0, note=64, velocity=90, time=0))
t.append(mido.Message("note_on", channel=0, note=64, velocity=0, time=480))    # 3.0 s
save(mid, "mido-format0-tempo.mid", [
    {"start": 0.0, "end": 0.5, "hz": hz(0)},
    {"start": 0.5, "end": 1.0, "hz": hz(12)},
    {"start": 1.0, "end": 2.0, "hz": hz(-12)},
    {"start": 2.0, "end": 3.0, "hz": hz(-5)},
])

# 2. Format 1: a tempo map in track 0 (100 → 200 bpm), notes on two channels in two
#    tracks; pitch bend at the default ±2, then RPN 0 = 12 semitones.
mid = mido.MidiFile(type=1, ticks_per_beat=96)
t0 = mido.MidiTrack(); mid.tracks.append(t0)
t0.append(mido.MetaMessage("set_tempo", tempo=600000, time=0))
t0.append(mido.MetaMessage("set_tempo", tempo=300000, time=192))              # tick 192 = 1.2 s
t1 = mido.MidiTrack(); mid.tracks.append(t1)
t1.append(mido.Message("note_on", channel=2, note=60, velocity=100, time=0))
t1.append(mido.Message("note_off", channel=2, note=60, time=96))              # 0.6 s
t1.append(mido.Message("pitchwheel", channel=2, pitch=4096, time=0))          # +1 semitone at ±2
t1.append(mido.Message("note_on", channel=2, note=60, velocity=100, time=0))
t1.append(mido.Message("note_off", channel=2, note=60, time=96))              # 1.2 s
t1.append(mido.Message("control_change", channel=2, control=101, value=0, time=0))
t1.append(mido.Message("control_change", channel=2, control=100, value=0, time=0))
t1.append(mido.Message("control_change", channel=2, control=6, value=12, time=0))
t1.append(mido.Message("note_on", channel=2, note=60, velocity=100, time=0))  # +6 at ±12
t1.append(mido.Message("note_off", channel=2, note=60, time=96))              # 1.5 s
t2 = mido.MidiTrack(); mid.tracks.append(t2)
t2.append(mido.Message("note_on", channel=5, note=45, velocity=60, time=96))   # 0.6 s, A2
t2.append(mido.Message("note_off", channel=5, note=45, time=96))              # 1.2 s
save(mid, "mido-format1-tempo-map.mid", [
    {"start": 0.0, "end": 0.6, "hz": hz(60 - 69)},
    {"start": 0.6, "end": 1.2, "hz": hz(61 - 69), "with": hz(45 - 69)},
    {"start": 1.2, "end": 1.5, "hz": hz(66 - 69)},
])

# 3. MPE in 17-EDO: the MCM (lower zone, 15 members; member bend range left at the MPE
#    default of ±48), one member channel per note, each step as the nearest note plus a
#    bend at ±48; the last note also bent +1 semitone by the master channel (±2).
mid = mido.MidiFile(type=1, ticks_per_beat=480)
t0 = mido.MidiTrack(); mid.tracks.append(t0)
t0.append(mido.MetaMessage("set_tempo", tempo=500000, time=0))
t1 = mido.MidiTrack(); mid.tracks.append(t1)
for cc, v in ((101, 0), (100, 6), (6, 15)):
    t1.append(mido.Message("control_change", channel=0, control=cc, value=v, time=0))
steps = [0, 2, 5, 7, 10, 13, 17, -7, 3]
expected = []
for i, k in enumerate(steps):
    ch = 1 + i % 15
    semis = 12 * k / 17
    note = 69 + round(semis)
    bend = round((semis - round(semis)) / 48 * 8192)
    master = i == len(steps) - 1
    t1.append(mido.Message("pitchwheel", channel=ch, pitch=bend, time=0))
    if master:
        t1.append(mido.Message("pitchwheel", channel=0, pitch=4096, time=0))
    t1.append(mido.Message("note_on", channel=ch, note=note, velocity=100, time=0))
    t1.append(mido.Message("note_off", channel=ch, note=note, velocity=64, time=384))  # 0.4 s
    expected.append({"start": 0.4 * i, "end": 0.4 * (i + 1), "hz": A4 * 2 ** (k / 17) * (2 ** (1 / 12) if master else 1),
                     "step": k})
save(mid, "mido-mpe-17edo.mid", expected)

# 4–6. Files that end by their End-of-Track after their last sound (issue 28): a render
#    lasts until the file's end ("length", seconds: the latest End-of-Track through the
#    tempo map), not only until the last release.
def save_length(mid, name, expected, length):
    path = os.path.join(out, name)
    mid.save(path)
    with open(path + ".expected.json", "w") as f:
        json.dump({"notes": expected, "length": length}, f, indent=1)
        f.write("\n")

# 4. Format 0: one note 0–0.5 s, End-of-Track at 1.5 s (as test-track-length.mid).
mid = mido.MidiFile(type=0, ticks_per_beat=480)
t = mido.MidiTrack(); mid.tracks.append(t)
t.append(mido.Message("note_on", channel=0, note=69, velocity=100, time=0))
t.append(mido.Message("note_off", channel=0, note=69, velocity=0, time=480))  # 0.5 s
t.append(mido.MetaMessage("end_of_track", time=960))                          # 1.5 s
save_length(mid, "mido-eot-after-note.mid", [{"start": 0.0, "end": 0.5, "hz": hz(0)}], 1.5)

# 5. Format 0: silence that ends by End-of-Track at 5 s (no note at all).
mid = mido.MidiFile(type=0, ticks_per_beat=96)
t = mido.MidiTrack(); mid.tracks.append(t)
t.append(mido.MetaMessage("set_tempo", tempo=500000, time=0))
t.append(mido.MetaMessage("end_of_track", time=960))                          # 5 s
save_length(mid, "mido-silence-eot.mid", [], 5.0)

# 6. Format 1: the notes in track 1 end at 1.0 s; track 2 holds all-notes-off and a text
#    event, and ends by its End-of-Track at 2.75 s, after a tempo change (120 → 60 bpm at
#    1.0 s) in track 0: the latest End-of-Track of any track, through the tempo map.
mid = mido.MidiFile(type=1, ticks_per_beat=240)
t0 = mido.MidiTrack(); mid.tracks.append(t0)
t0.append(mido.MetaMessage("set_tempo", tempo=500000, time=0))
t0.append(mido.MetaMessage("set_tempo", tempo=1000000, time=480))             # tick 480 = 1.0 s
t1 = mido.MidiTrack(); mid.tracks.append(t1)
t1.append(mido.Message("note_on", channel=0, note=57, velocity=100, time=0))
t1.append(mido.Message("note_off", channel=0, note=57, time=480))             # 1.0 s
t2 = mido.MidiTrack(); mid.tracks.append(t2)
t2.append(mido.Message("control_change", channel=0, control=123, value=0, time=600))  # 1.5 s
t2.append(mido.MetaMessage("text", text="the end", time=120))                 # 2.0 s
t2.append(mido.MetaMessage("end_of_track", time=180))                         # 2.75 s
save_length(mid, "mido-format1-late-eot.mid", [{"start": 0.0, "end": 1.0, "hz": hz(-12)}], 2.75)

# 7–8. Tuning messages (issue 28): each note's window of constant pitch and its frequency
#    ("notes": start, end, hz; a note retuned while it sounds is two windows). In 12-TET
#    every note would be 12 cents or more off these.
def save_windows(mid, name, windows):
    path = os.path.join(out, name)
    mid.save(path)
    with open(path + ".expected.json", "w") as f:
        json.dump({"notes": windows}, f, indent=1)
        f.write("\n")

def rpn(track, channel, lsb, msb_value, lsb_value=None):
    track.append(mido.Message("control_change", channel=channel, control=101, value=0, time=0))
    track.append(mido.Message("control_change", channel=channel, control=100, value=lsb, time=0))
    track.append(mido.Message("control_change", channel=channel, control=6, value=msb_value, time=0))
    if lsb_value is not None:
        track.append(mido.Message("control_change", channel=channel, control=38, value=lsb_value, time=0))

def note(track, channel, key, ticks, velocity=100):
    track.append(mido.Message("note_on", channel=channel, note=key, velocity=velocity, time=0))
    track.append(mido.Message("note_off", channel=channel, note=key, time=ticks))

def cents_hz(key, cents):
    return hz(key - 69 + cents / 100)

# 7. RPN 1 (channel fine tuning) and RPN 2 (channel coarse tuning), 480 ticks = 0.5 s.
mid = mido.MidiFile(type=0, ticks_per_beat=480)
t = mido.MidiTrack(); mid.tracks.append(t)
rpn(t, 0, 1, 80, 0)                  # ch 1: fine 10240 = +25 cents
note(t, 0, 69, 480)                  # 0.0–0.5
rpn(t, 1, 2, 67)                     # ch 2: coarse +3 semitones
rpn(t, 1, 1, 32, 0)                  # and fine 4096 = −50 cents
note(t, 1, 60, 480)                  # 0.5–1.0
rpn(t, 2, 1, 71, 104)                # ch 3: fine 9192 = +12.207 cents (CC 38 the low bits)
note(t, 2, 64, 480)                  # 1.0–1.5
for cc in (101, 100):                # ch 1: RPN null, then a data entry that changes nothing
    t.append(mido.Message("control_change", channel=0, control=cc, value=127, time=0))
t.append(mido.Message("control_change", channel=0, control=6, value=0, time=0))
note(t, 0, 69, 480)                  # 1.5–2.0, still +25 cents
save_windows(mid, "mido-tuning-rpn.mid", [
    {"start": 0.0, "end": 0.5, "hz": cents_hz(69, 25)},
    {"start": 0.5, "end": 1.0, "hz": cents_hz(63, -50)},
    {"start": 1.0, "end": 1.5, "hz": cents_hz(64, 1000 * 100 / 8192)},
    {"start": 1.5, "end": 2.0, "hz": cents_hz(69, 25)},
])

# 8. SysEx: universal master coarse and fine tuning; MTS scale/octave tuning, 1-byte
#    non-real-time and 2-byte real-time; Roland GS scale tuning (and one with a bad
#    checksum, not taken).
def sysex(track, data, ticks=0):
    track.append(mido.Message("sysex", data=data, time=ticks))

def gs_scale(block, cents, good=True):
    body = [0x40, 0x10 | block, 0x40] + [64 + c for c in cents]
    checksum = (128 - sum(body) % 128) % 128
    return [0x41, 0x10, 0x42, 0x12] + body + [checksum if good else (checksum + 1) % 128]

mid = mido.MidiFile(type=0, ticks_per_beat=480)
t = mido.MidiTrack(); mid.tracks.append(t)
sysex(t, [0x7F, 0x7F, 0x04, 0x04, 0x00, 66])           # master coarse +2 semitones
sysex(t, [0x7F, 0x7F, 0x04, 0x03, 0x00, 48])           # master fine 6144 = −25 cents
note(t, 0, 69, 480)                                     # 0.0–0.5: +175 cents
sysex(t, [0x7F, 0x7F, 0x04, 0x04, 0x00, 64])           # master back to 0
sysex(t, [0x7F, 0x7F, 0x04, 0x03, 0x00, 64])
mts1 = [64] * 12; mts1[9] = 84; mts1[4] = 50            # A +20, E −14
sysex(t, [0x7E, 0x7F, 0x08, 0x08, 0x00, 0x00, 0x02] + mts1)  # 1-byte, non-real-time, channel 2
note(t, 1, 69, 480)                                     # 0.5–1.0: +20 cents
note(t, 1, 64, 480)                                     # 1.0–1.5: −14 cents
t.append(mido.Message("note_on", channel=2, note=60, velocity=100, time=0))  # 1.5, 12-TET
mts2 = [0x40, 0x00] * 12; mts2[0:2] = [85, 40]          # C: 10920 = +33.301 cents
sysex(t, [0x7F, 0x7F, 0x08, 0x09, 0x00, 0x00, 0x04] + mts2, 480)  # 2.0: 2-byte, real-time, channel 3
t.append(mido.Message("note_off", channel=2, note=60, time=480))  # 2.5
t.append(mido.Message("note_on", channel=2, note=60, velocity=100, time=0))  # 2.5: +33.301
mts3 = [64] * 12; mts3[0] = 24                          # C −40, non-real-time
sysex(t, [0x7E, 0x7F, 0x08, 0x08, 0x00, 0x00, 0x04] + mts3, 480)  # 3.0: the held note stays
t.append(mido.Message("note_off", channel=2, note=60, time=480))  # 3.5
note(t, 2, 60, 480)                                     # 3.5–4.0: −40 cents
arabian = [-6, 45, -2, -12, -51, -8, 43, -4, 47, 0, -10, -49]  # Roland FP-30's example
sysex(t, gs_scale(4, arabian))                          # GS block 4 = part 4, channel 4
note(t, 3, 64, 480)                                     # 4.0–4.5: E −51 cents
sysex(t, gs_scale(5, arabian, good=False))              # block 5, bad checksum: ignored
note(t, 4, 64, 480)                                     # 4.5–5.0: 12-TET
save_windows(mid, "mido-tuning-sysex.mid", [
    {"start": 0.0, "end": 0.5, "hz": cents_hz(69, 175)},
    {"start": 0.5, "end": 1.0, "hz": cents_hz(69, 20)},
    {"start": 1.0, "end": 1.5, "hz": cents_hz(64, -14)},
    {"start": 1.5, "end": 2.0, "hz": cents_hz(60, 0), "twelveTET": True},
    {"start": 2.0, "end": 2.5, "hz": cents_hz(60, (10920 - 8192) * 100 / 8192)},
    {"start": 2.5, "end": 3.5, "hz": cents_hz(60, (10920 - 8192) * 100 / 8192)},
    {"start": 3.5, "end": 4.0, "hz": cents_hz(60, -40)},
    {"start": 4.0, "end": 4.5, "hz": cents_hz(64, -51)},
    {"start": 4.5, "end": 5.0, "hz": cents_hz(64, 0), "twelveTET": True},
])

# 9. Keys for --scale and --kbm (issue 28): one key after another, 0.3 s each (240
#    ticks, half a quarter at 600 000 µs a quarter), then key 69
#    bent +1 semitone (pitchwheel 4096 at the default ±2). The frequencies each
#    --scale/--kbm implies are the tests' own (MIDIScaleCommandTests).
KEYS = [59, 60, 61, 62, 64, 67, 69, 70, 71, 72, 73]
mid = mido.MidiFile(type=0, ticks_per_beat=480)
t = mido.MidiTrack(); mid.tracks.append(t)
t.append(mido.MetaMessage("set_tempo", tempo=600000, time=0))
for k in KEYS:
    note(t, 0, k, 240)
t.append(mido.Message("pitchwheel", channel=0, pitch=4096, time=0))
note(t, 0, 69, 240)
save_windows(mid, "mido-keys.mid", [{"start": 0.3 * i, "end": 0.3 * (i + 1), "key": k, "hz": hz(k - 69)}
                                    for i, k in enumerate(KEYS)]
             + [{"start": 0.3 * len(KEYS), "end": 0.3 * (len(KEYS) + 1), "key": 69, "bend": 1, "hz": hz(1)}])
