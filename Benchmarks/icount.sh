#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `make bench-icount`: instructions per voice-frame under valgrind's callgrind — the
# noise-free figure. Each program renders twice (S1 and S2 seconds); the difference of the
# two totals over the difference of voice-frames cancels start-up and tone building, and
# keeps what each period costs: the pitch/gain updates plus the render. (bandlimited builds
# its tables by FFT in both runs: seconds under valgrind.)
# usage: Benchmarks/icount.sh BENDSYNTH_BENCH OPENAL_BASELINE
set -eu
BIN=$1; OAL=$2; S1=0.05; S2=0.15; RATE=48000
CONF_DIR=$(mktemp -d); trap 'rm -rf "$CONF_DIR"' EXIT
# valgrind 3.19 (Debian 12) cannot read the DWARF 5 that the toolchain's clang writes for
# the C targets linked in (CBuildInfo: "unhandled dwarf2 abbrev form code 0x25", then it
# gives up); the counts need no debug info, so the bench runs from a copy without it.
strip --strip-debug -o "$CONF_DIR/bench" "$BIN"
BIN=$CONF_DIR/bench

total() {  # total CMD... → instructions executed
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/Collected :/ { print $NF }'
}
per_voice_frame() {  # per_voice_frame VOICES PERIOD I1 I2
  awk -v n="$1" -v p="$2" -v a="$3" -v b="$4" -v s1="$S1" -v s2="$S2" -v r="$RATE" 'BEGIN {
    f1 = int(s1 * r / p) * p; f2 = int(s2 * r / p) * p; printf "%.1f", (b - a) / ((f2 - f1) * n) }'
}

echo "instructions per voice-frame (callgrind; updates + render per period)"
echo
echo "| voices | period | bendsynth bandlimited | bendsynth cubic | bendsynth linear | OpenAL Soft cubic | OpenAL Soft linear | OpenAL Soft bsinc12 | OpenAL Soft bsinc24 |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for period in 64 256; do
  for n in 64 1024; do
    row="| $n | $period |"
    for interp in bandlimited cubic linear; do
      a=$(total "$BIN" --voices "$n" --period "$period" --interp "$interp" --seconds $S1)
      b=$(total "$BIN" --voices "$n" --period "$period" --interp "$interp" --seconds $S2)
      row="$row $(per_voice_frame "$n" "$period" "$a" "$b") |"
    done
    for resampler in cubic linear bsinc12 bsinc24; do
      printf '[general]\nsources = %s\nresampler = %s\n' "$n" "$resampler" > "$CONF_DIR/alsoft.conf"
      a=$(ALSOFT_CONF="$CONF_DIR/alsoft.conf" total "$OAL" "$n" "$period" $S1)
      b=$(ALSOFT_CONF="$CONF_DIR/alsoft.conf" total "$OAL" "$n" "$period" $S2)
      row="$row $(per_voice_frame "$n" "$period" "$a" "$b") |"
    done
    echo "$row"
  done
done

echo
echo "Your own sounds (\`--sounds --sound-case CASE\`): instructions per touch-frame, 64 touches, 64-frame periods, bandlimited"
echo
echo "| plain tone | sustain loop | zone crossfade on every touch (2 voices each) | low-pass filter |"
echo "|---:|---:|---:|---:|"
row="|"
for c in plain loops crossfade filter; do
  a=$(total "$BIN" --voices 64 --period 64 --interp bandlimited --seconds $S1 --sounds --sound-case "$c")
  b=$(total "$BIN" --voices 64 --period 64 --interp bandlimited --seconds $S2 --sounds --sound-case "$c")
  row="$row $(per_voice_frame 64 64 "$a" "$b") |"
done
echo "$row"

echo
echo "Send effects (\`--effects\`: reverb, delay and chorus, every voice sending): instructions per output frame, the difference from the same run without; 64 voices, 64-frame periods, bandlimited"
echo
echo "| voices alone (per frame) | with the send effects | the effects | the effects against the voices |"
echo "|---:|---:|---:|---:|"
a=$(total "$BIN" --voices 64 --period 64 --interp bandlimited --seconds $S1)
b=$(total "$BIN" --voices 64 --period 64 --interp bandlimited --seconds $S2)
c=$(total "$BIN" --voices 64 --period 64 --interp bandlimited --seconds $S1 --effects)
d=$(total "$BIN" --voices 64 --period 64 --interp bandlimited --seconds $S2 --effects)
awk -v a="$a" -v b="$b" -v c="$c" -v d="$d" -v s1="$S1" -v s2="$S2" -v r="$RATE" 'BEGIN {
  f = int(s2 * r / 64) * 64 - int(s1 * r / 64) * 64; v = (b - a) / f; e = (d - c) / f
  printf "| %.0f | %.0f | %.0f | %.1f %% |\n", v, e, e - v, 100 * (e - v) / v }'
