#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `make bench`, real-time part: `bendsynth play` on jackd's dummy driver (48 kHz,
# 64-frame periods, real-time where permitted: jackd-dummy.sh), twice: through the ALSA `jack` PCM of
# libasound2-plugins (/usr/share/alsa/alsa.conf.d/50-jack.conf), and as a native JACK
# client (-a jack: the process callback is the render thread) — each holding TOUCHES
# moving touches for SECONDS with --voices 1024. Prints xruns, the render thread's load
# per period, heap allocations and mutex locks on it (and how many of those locks were
# taken inside alsa-lib, its plugins or libjack), the output latency, the event →
# frame latency (OSC touches sent during the run) and the start-up time (median of 10
# runs). Printed, never asserted.
# When jackd cannot run, the load figures come from the clock-paced output instead
# (-d nonexistent --record), and say so.
# usage: Benchmarks/realtime.sh BENDSYNTH [SECONDS] [TOUCHES]
set -eu
BIN=$1; SECS=${2:-60}; TOUCHES=${3:-1024}
DIR=$(mktemp -d)
export JACK_DEFAULT_SERVER=bendbench$$
JACK_PID=; PLAY_PID=
cleanup() {
  [ -n "$PLAY_PID" ] && kill -TERM "$PLAY_PID" 2>/dev/null || true
  [ -n "$JACK_PID" ] && { kill -TERM "$JACK_PID" 2>/dev/null; wait "$JACK_PID" 2>/dev/null; } || true
  rm -rf "$DIR"
}
trap cleanup EXIT

DEVICE=(-d jack --period 64); LABEL="ALSA 'jack' PCM → jackd dummy driver (48 kHz, 64-frame periods)"
if command -v jackd >/dev/null; then
  . "$(dirname "$0")/jackd-dummy.sh"
  start_dummy_jackd 64 "$DIR/jackd.log" || { echo "jackd did not start: $(tail -3 "$DIR/jackd.log")"; JACK_PID=; }
else
  echo "jackd is not installed (Debian jackd2)"
fi
if [ -z "$JACK_PID" ]; then
  DEVICE=(-d nonexistent --period 64 --record "$DIR/take.wav")
  LABEL="FALLBACK: no jackd — clock-paced output (-d nonexistent --record), not a device"
fi

run() {  # LABEL, XRUN NOTE, play's output options...
  local label=$1 xnote=$2; shift 2
  local out=("$@")
  echo "Real time: bendsynth play ${out[*]} --voices 1024, $TOUCHES moving touches for $SECS s"
  echo "  output: $label"
  # Start-up: `play` started → first period written (wall clock), 10 runs.
  for _ in $(seq 10); do
    t0=$EPOCHREALTIME
    "$BIN" play --no-terminal "${out[@]}" --voices 1024 --script "$DIR/short.jsonl" --load-stats 2>&1 |
      awk -v t0="$t0" '/first period written at/ { printf "%.1f\n", ($6 - t0) * 1000 }'
  done | sort -n >"$DIR/startup"
  echo "  start-up (play started → first period written), 10 runs: median $(sed -n 5p "$DIR/startup") ms (min $(head -1 "$DIR/startup"), max $(tail -1 "$DIR/startup") ms; goal < 150 ms)"
  local before
  before=$(grep -c XRun "$DIR/jackd.log" 2>/dev/null || true)
  LD_PRELOAD="$DIR/render_watch.so" "$BIN" play --no-terminal "${out[@]}" --voices 1024 --script "$DIR/touches.jsonl" \
    --osc "127.0.0.1:$PORT" --osc-timeout 0 --load-stats 2>"$DIR/play.err" &
  PLAY_PID=$!
  for _ in $(seq 600); do  # up to 60 s for the script to be read and the output to start
    grep -q "^bendsynth: \(ALSA\|JACK\|no sound device\)" "$DIR/play.err" && break
    kill -0 "$PLAY_PID" 2>/dev/null || break
    sleep 0.1
  done
  local start=$SECONDS
  while [ $((SECONDS - start)) -lt $((SECS + 1)) ] && kill -0 "$PLAY_PID" 2>/dev/null; do
    oscsend localhost "$PORT" /bendsynth/touch iff 900000 "0.$((RANDOM % 9 + 1))" 0.5 2>/dev/null || true
    sleep "0.0$((RANDOM % 9 + 1))"
  done
  kill -TERM "$PLAY_PID" 2>/dev/null || true  # the OSC source does not end by itself
  wait "$PLAY_PID" || echo "  play failed: $(tail -3 "$DIR/play.err")"
  PLAY_PID=
  local xruns=$(( $(grep -c XRun "$DIR/jackd.log" 2>/dev/null || true) - before ))
  sed -n 's/^bendsynth: ALSA .*: \(.*buffer [^;]*\);.*/  configured: \1/p; s/^bendsynth: JACK client [^:]*: \([^;]*\);.*/  configured: \1/p; s/^bendsynth: \(played .*\)/  \1 ('"$xnote"')/p; s/^bendsynth: \(render load.*\)/  \1/p; s/^bendsynth: \(event queue.*\)/  \1/p; s/^bendsynth: \(.*events dropped.*\)/  \1/p' "$DIR/play.err"
  [ -n "$JACK_PID" ] && echo "  jackd's own dummy-driver xruns during the run (jackd $JACK_RT): $xruns"
  sed -n 's/^bendsynth: \(render thread over the whole run.*\)/  \1; goal 0 and 0 outside the device'"'"'s own calls/p' "$DIR/play.err"
  # The device's own locks seen so far (backtraces from the interposer, docs/PERFORMANCE.md):
  # the ALSA `jack` PCM's start callback locks its mutex when a snd_pcm_writei restarts
  # the stream after an xrun's recovery — one per recovered xrun.
  if [ "${out[0]} ${out[1]:-}" = "-d jack" ] && grep -q "render thread over the whole run.*in the device's own calls" "$DIR/play.err"; then
    echo "  (the device's locks: alsa-lib's snd_pcm_writei restarting the PCM after an xrun → the jack plugin's start callback locks its mutex, one per xrun)"
  fi
  echo "  render thread: @_noLocks on the whole render path, checked by the release build (no allocation, no locks)"
}

printf '{"t": 0, "type": "down", "id": 1, "x": 0.5, "y": 0.5}\n{"t": 0.05, "type": "up", "id": 1}\n' >"$DIR/short.jsonl"
"$(dirname "$0")/touches.sh" "$TOUCHES" "$SECS" 0.1 >"$DIR/touches.jsonl"
PORT=$((20000 + $$ % 20000))
# render_watch.so counts heap allocations and mutex locks on the render thread.
cc -O2 -shared -fPIC -I "$(dirname "$0")/../Sources/CAllocCounter/include" -o "$DIR/render_watch.so" "$(dirname "$0")/render_watch.c" -ldl
run "$LABEL" "bendsynth's xruns; goal 0" "${DEVICE[@]}"
if [ -n "$JACK_PID" ]; then
  echo
  run "native JACK client (-a jack: JACK's process callback renders) → jackd dummy driver (48 kHz, 64-frame periods)" \
    "JACK's xrun callback: the server's xruns, whatever their cause" -a jack
fi
