# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the benchmarks that need a paced JACK server (realtime.sh, soak.sh).
# start_dummy_jackd PERIOD LOG: starts jackd's dummy driver at 48 kHz and PERIOD frames
# (the server JACK_DEFAULT_SERVER names, if set), its output to LOG; sets JACK_PID (the
# caller's EXIT trap stops it by that pid) and waits up to 10 s for its ports. Returns 1
# when they never came.
# Real-time as a musician runs it (`jackd -R -P 70`: SCHED_FIFO for jackd and, at a lower
# priority it chooses, every client's process thread) where this account may use
# SCHED_FIFO (root, or an rtprio limit); otherwise `--no-realtime`. JACK_RT says which:
# "real-time (SCHED_FIFO 70)" or "not real-time (SCHED_FIFO refused)".
start_dummy_jackd() {
  if chrt -f 70 true 2>/dev/null; then
    JACK_RT="real-time (SCHED_FIFO 70)"
    jackd -R -P 70 -d dummy -r 48000 -p "$1" >"$2" 2>&1 &
  else
    JACK_RT="not real-time (SCHED_FIFO refused)"
    jackd --no-realtime -d dummy -r 48000 -p "$1" >"$2" 2>&1 &
  fi
  JACK_PID=$!
  for _ in $(seq 100); do
    jack_lsp 2>/dev/null | grep -q system:playback_1 && return 0
    kill -0 "$JACK_PID" 2>/dev/null || break
    sleep 0.1
  done
  jack_lsp 2>/dev/null | grep -q system:playback_1
}
