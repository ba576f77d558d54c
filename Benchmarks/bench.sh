#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `make bench`: bendsynth's mixer and OpenAL Soft's (loopback device) on the same voice
# set, one run, printed as a Markdown table. Figures are printed, never asserted.
# usage: Benchmarks/bench.sh BENDSYNTH_BENCH OPENAL_BASELINE [SECONDS]
set -eu
BIN=$1; OAL=$2; SECONDS_PER=${3:-2}
CONF_DIR=$(mktemp -d); trap 'rm -rf "$CONF_DIR"' EXIT

# Each cell renders at least 512 voice-seconds (16 voices: 32 s of audio) and is the
# median of 3 runs, for bendsynth and OpenAL alike: a short cell on a shared machine
# moves by 25 % or more, a median of longer ones by a few per cent.
seconds_for() { awk -v n="$1" -v s="$SECONDS_PER" 'BEGIN { t = 512 / n; print (t > s ? t : s) }'; }
median3() { sort -g | sed -n 2p; }

ours() {  # ours VOICES PERIOD INTERP (bandlimited|cubic|linear) → ns per voice-frame
  s=$(seconds_for "$1"); runs=""
  for run in 1 2 3; do
    # bench exits 1 (after printing its figures) when the render was silent or a voice
    # was missing: that stops the table too.
    json=$("$BIN" --voices "$1" --period "$2" --interp "$3" --seconds "$s" --json) ||
      { echo "bendsynth-bench failed: $1 voices, period $2, $3" >&2; exit 1; }
    ns=$(echo "$json" | awk -F': *' '/"nsPerVoiceFrame"/ { gsub(/[ ,]/, "", $2); print $2 }')
    [ -n "$ns" ] || { echo "bendsynth-bench printed no figure: $1 voices, period $2, $3" >&2; exit 1; }
    runs="$runs $ns"
  done
  printf '%s\n' $runs | median3
}
openal() {  # openal VOICES PERIOD RESAMPLER → ns per voice-frame (fails when silent or a source is missing)
  s=$(seconds_for "$1"); runs=""
  printf '[general]\nsources = %s\nresampler = %s\n' "$1" "$3" > "$CONF_DIR/alsoft.conf"
  for run in 1 2 3; do
    line=$(ALSOFT_CONF="$CONF_DIR/alsoft.conf" BENCH_RESAMPLER="$3" "$OAL" "$1" "$2" "$s") ||
      { echo "OpenAL baseline failed: $1 voices, period $2, $3" >&2; exit 1; }
    echo "$line" | grep -q "playing=$1$" || { echo "OpenAL did not play all $1 sources: $line" >&2; exit 1; }
    runs="$runs $(echo "$line" | sed 's/.* ns=\([0-9.]*\).*/\1/')"
  done
  printf '%s\n' $runs | median3
}

echo "ns per voice-frame (lower is better); stereo float, 48 kHz, pitch 0.5…2 and gain moving every period; median of 3 runs of max($SECONDS_PER s, 512 voice-seconds) each"
echo "bendsynth bandlimited (the default) is alias-free (≤ −86 dB alias and image energy on a sawtooth and on a tone whose harmonics are all equally loud, BandLimitedTests); cubic and linear alias like OpenAL's cubic and linear; OpenAL's bsinc12/bsinc24 have a ~−60 dB stop band"
echo
echo "| voices | period | bendsynth bandlimited | bendsynth cubic | bendsynth linear | OpenAL Soft cubic | OpenAL Soft linear | OpenAL Soft bsinc12 | OpenAL Soft bsinc24 | bsinc24 ÷ bandlimited | bandlimited voices/core in real time |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for period in 64 256; do
  for n in 16 64 256 1024; do
    ob=$(ours "$n" "$period" bandlimited); oc=$(ours "$n" "$period" cubic); ol=$(ours "$n" "$period" linear)
    ac=$(openal "$n" "$period" cubic); al=$(openal "$n" "$period" linear)
    a12=$(openal "$n" "$period" bsinc12); a24=$(openal "$n" "$period" bsinc24)
    awk -v n="$n" -v p="$period" -v ob="$ob" -v oc="$oc" -v ol="$ol" -v ac="$ac" -v al="$al" -v a12="$a12" -v a24="$a24" 'BEGIN {
      printf "| %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f× | %.0f |\n", n, p, ob, oc, ol, ac, al, a12, a24, a24 / ob, 1e9 / (ob * 48000) }'
  done
done
echo
"$BIN" --voices 16 --period 64 --seconds 0.01 --json | awk -F': *' '/"tableBytes"/ { gsub(/[ ,]/, "", $2); mb = $2 / 1e6 }
  /"levelSeconds"/ { gsub(/[ ,]/, "", $2); s = $2 }
  END { printf "bandlimited tables of the bench tone (1 s, 48 000 frames): %.1f MB, made in %.0f ms\n", mb, s * 1000 }'

# The table's moves all come at a period's first frame, as OpenAL's property setters
# take effect. Live input comes spread over the period, and bendsynth applies each event
# at its own frame (one more span of mixing for that voice):
echo
"$BIN" --voices 1024 --period 64 --seconds "$SECONDS_PER" --spread
