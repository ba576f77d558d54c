#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `make bench`, soak part: `bendsynth-bench --soak` on jackd's dummy driver (48 kHz,
# 256-frame periods, real-time where permitted: jackd-dummy.sh) under a private server name: the instrument
# under 8 peer controllers, an OSC flood touching ten times the per-sender touch limit
# and 8 web pads, for SECONDS; then every source goes. Prints xruns (the client's and
# jackd's own), the limits (most touches held per source, touches refused), events
# dropped, resident memory after warm-up and at the end, and how long after the sources
# went the last touch ended. Printed, never asserted.
# The control: a second dummy jackd (the same settings, its own name) with one trivial
# client, jackd2's jack_simple_client (a sine table copied to two ports), runs through the
# same seconds. Its xruns are what this machine does to any real-time JACK client, the
# instrument or not (a virtual CPU that the host does not run, a timer that wakes late);
# the soak's own xruns are to be read against them.
# usage: Benchmarks/soak.sh BENDSYNTH_BENCH [SECONDS]
set -eu
BIN=$1; SECS=${2:-60}
DIR=$(mktemp -d)
# One fixed private name (jackd's shm registry has few slots; never a random one).
export JACK_DEFAULT_SERVER=bendsynth-soak JACK_NO_START_SERVER=1
JACK_PID=; CONTROL_PID=; CLIENT_PID=
cleanup() {
  for pid in $CLIENT_PID $CONTROL_PID $JACK_PID; do kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done || true
  rm -rf "$DIR"
}
trap cleanup EXIT
command -v jackd >/dev/null || { echo "soak: jackd is not installed (Debian jackd2; make bench-deps)"; exit 1; }
. "$(dirname "$0")/jackd-dummy.sh"
JACK_DEFAULT_SERVER=bendsynth-soak-control start_dummy_jackd 256 "$DIR/control.log" ||
  { echo "soak: the control jackd did not start: $(tail -3 "$DIR/control.log")"; exit 1; }
CONTROL_PID=$JACK_PID; JACK_PID=
JACK_DEFAULT_SERVER=bendsynth-soak-control jack_simple_client >"$DIR/client.log" 2>&1 &
CLIENT_PID=$!
start_dummy_jackd 256 "$DIR/jackd.log" || { echo "soak: jackd did not start: $(tail -3 "$DIR/jackd.log")"; exit 1; }
before=$(grep -c XRun "$DIR/jackd.log" || true)
lines_before=$(wc -l < "$DIR/jackd.log")
control_before=$(grep -c XRun "$DIR/control.log" || true)
echo "soak: load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
steal0=$(awk '/^cpu /{print $9}' /proc/stat)
"$BIN" --soak --seconds "$SECS"
control_xruns=$(( $(grep -c XRun "$DIR/control.log" || true) - control_before ))
echo "  load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  jackd's own dummy-driver xruns during the soak (jackd $JACK_RT): $(( $(grep -c XRun "$DIR/jackd.log" || true) - before ))"
# jackd names two kinds: its dummy driver's timer woke late (no client involved), and the
# client had not finished its period (not started: "Triggered"; not done: "Running").
during() { tail -n +"$((lines_before + 1))" "$DIR/jackd.log" | grep -c "$1" || true; }
echo "    of these: the driver's own timer woke late $(during 'JackTimedDriver::Process XRun')," \
  "bendsynth's period not started in time $(during 'not finished, state = Triggered')," \
  "not finished in time $(during 'not finished, state = Running')"
kill -0 "$CLIENT_PID" 2>/dev/null || echo "  (the control's jack_simple_client had stopped: $(tail -2 "$DIR/client.log"))"
echo "  the control, a second jackd with only jack_simple_client, over the same seconds: $control_xruns xruns"
# CPU time the hypervisor took from this machine's virtual CPUs (vmstat's "st"), which
# stalls real-time threads as much as any other.
echo "  CPU stolen by the host during the soak: $(awk -v s="$steal0" -v hz="$(getconf CLK_TCK)" '/^cpu /{printf "%.2f s", ($9 - s) / hz}' /proc/stat) (both virtual CPUs; /proc/stat's steal)"
