#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `make bench`: every bench, in turn, printed as it runs and collected into docs/FIGURES.md:
# Benchmarks/FIGURES.md.in with each `<!-- figures: NAME -->` line replaced by NAME's
# command, when it ran, the load average at its start and what it printed, and
# `<!-- run -->` by the machine (lscpu), the commit and the build. The file is written
# whole at the end (through a temporary file), only when every bench succeeded; a bench
# that fails stops the run and leaves the file as it was. Figures are printed, never
# asserted.
# usage: Benchmarks/figures.sh BENDSYNTH BENDSYNTH_BENCH OPENAL_BASELINE OUT.md
# Environment: BENCH_SECONDS (the mixer's seconds per cell, 2), RT_SECONDS (60),
# SOAK_SECONDS (60), BENCH_CPU (the build's CPU, the Makefile's CPU), BENCH_LV2 (the
# folder of the bendsynth.lv2 measured, .build/lv2-bench: `make lv2-bench`), LV2_SECONDS
# (seconds timed per LV2 run, 1).
set -eu -o pipefail
BIN=$1; BENCH=$2; OAL=$3; OUT=$4
HERE=$(dirname "$0")
TEMPLATE=$HERE/FIGURES.md.in
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
started=$(date -u '+%Y-%m-%d %H:%M')

# run NAME FORMAT COMMAND...: runs COMMAND (its output to the terminal and kept), then
# writes NAME's block: FORMAT "markdown" keeps the output as it is (tables), "text"
# puts it in a code block.
run() {
  local name=$1 format=$2; shift 2
  local when load
  when=$(date -u '+%Y-%m-%d %H:%M UTC'); load=$(cut -d' ' -f1-3 /proc/loadavg)
  echo "== $name: $*"
  if ! "$@" | tee "$TMP/$name.out"; then
    echo "figures: '$*' failed; $OUT is left as it was" >&2
    exit 1
  fi
  {
    printf '`%s` — %s, load average %s at its start:\n\n' "$*" "$when" "$load"
    if [ "$format" = markdown ]; then cat "$TMP/$name.out"; else echo '```'; cat "$TMP/$name.out"; echo '```'; fi
  } >"$TMP/$name.md"
}

run mixer markdown "$HERE/bench.sh" "$BENCH" "$OAL" "${BENCH_SECONDS:-2}"
run icount markdown "$HERE/icount.sh" "$BENCH" "$OAL"
run sounds markdown "$BENCH" --sounds --voices 256 --period 64 --seconds "${BENCH_SECONDS:-2}"
run effects text "$BENCH" --voices 64 --period 64 --interp bandlimited --effects --seconds "${BENCH_SECONDS:-2}"
run realtime text "$HERE/realtime.sh" "$BIN" "${RT_SECONDS:-60}" 1024
run evdev text "$BENCH" --evdev Tests/BendEvdevTests/Fixtures/drag-two-fingers.evemu --period 64
run peers text "$BENCH" --peers 1,8 --seconds 4
run osc text "$BENCH" --osc --period 64
run clock markdown "$BENCH" --clock
if chrt -f 10 true 2>/dev/null; then
  run web text chrt -f 10 "$BENCH" --web Tests/BendAppTests/web/pad_driver.py
else
  run web text "$BENCH" --web Tests/BendAppTests/web/pad_driver.py
fi
run soak text "$HERE/soak.sh" "$BENCH" "${SOAK_SECONDS:-60}"
run plugin markdown "$BENCH" --lv2 "${BENCH_LV2:-.build/lv2-bench}" --seconds "${LV2_SECONDS:-1}"
run lv2size markdown "$HERE/lv2size.sh" .build/lv2/bendsynth.lv2 .build/static/release/BendLV2.product/Objects.LinkFileList .build/icu_data_stub.o

field() { lscpu | sed -n "s/^$1: *//p" | head -1; }
machine="$(field 'Model name'), $(field 'CPU(s)') CPUs ($(field 'Socket(s)') socket × $(field 'Core(s) per socket') cores × $(field 'Thread(s) per core') thread)"
hypervisor=$(field 'Hypervisor vendor')
[ -n "$hypervisor" ] && machine="$machine, a virtual machine ($hypervisor)"
commit=$(git describe --always --dirty 2>/dev/null || echo "a source tree without git")
{
  echo "Written by \`make bench\` ($started–$(date -u '+%H:%M') UTC) at commit $commit, on $machine,"
  echo "Linux $(uname -r); the release build, CPU=${BENCH_CPU:-baseline} (the Makefile's CPU features)."
  echo "Every figure below is what the command above it printed in this run."
} >"$TMP/run.md"

# The template with its markers replaced; a marker of no bench is an error.
awk -v dir="$TMP" '
  function include(file,   line) {
    if ((getline line < file) <= 0) { print "figures: " FILENAME ":" FNR ": no bench wrote " file > "/dev/stderr"; failed = 1; exit 1 }
    print line
    while ((getline line < file) > 0) print line
    close(file)
  }
  /^<!-- run -->$/ { include(dir "/run.md"); next }
  match($0, /^<!-- figures: [a-z]+ -->$/) { name = $3; include(dir "/" name ".md"); next }
  { print }
' "$TEMPLATE" >"$TMP/FIGURES.md"
mv "$TMP/FIGURES.md" "$OUT.tmp" && mv "$OUT.tmp" "$OUT"
echo "figures: wrote $OUT"
