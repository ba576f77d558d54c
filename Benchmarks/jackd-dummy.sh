# Sourced by the benchmarks that need a paced JACK server (realtime.sh, soak.sh).
# start_dummy_jackd PERIOD LOG: starts `jackd --no-realtime -d dummy` at 48 kHz and PERIOD
# frames (the server JACK_DEFAULT_SERVER names, if set), its output to LOG; sets JACK_PID
# (the caller's EXIT trap stops it by that pid) and waits up to 10 s for its ports.
# Returns 1 when they never came.
start_dummy_jackd() {
  jackd --no-realtime -d dummy -r 48000 -p "$1" >"$2" 2>&1 &
  JACK_PID=$!
  for _ in $(seq 100); do
    jack_lsp 2>/dev/null | grep -q system:playback_1 && return 0
    kill -0 "$JACK_PID" 2>/dev/null || break
    sleep 0.1
  done
  jack_lsp 2>/dev/null | grep -q system:playback_1
}
