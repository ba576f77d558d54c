#!/usr/bin/env python3
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
