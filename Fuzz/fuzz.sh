#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `make fuzz`: builds the fuzz targets of Sources/BendFuzz with libFuzzer's coverage
# instrumentation and AddressSanitizer (LeakSanitizer included) in a build of its own
# (.build/fuzz; `make test` never builds it), runs each target for FUZZ_SECONDS from the
# committed seed corpus (Fuzz/corpus/TARGET; new inputs go to .build/fuzz/corpus/TARGET,
# kept between runs), prints executions, exec/s, coverage and crashes per target as a
# table, and fails on any crash, leak, timeout or out-of-memory. A failing input is saved
# under .build/fuzz/artifacts/; replay it with `swift run BendFuzz TARGET FILE`.
# usage: Fuzz/fuzz.sh [TARGET…]     env: FUZZ_SECONDS (60), FUZZ_TIMEOUT (10 s per input),
#   FUZZ_RUNS (stop a target after this many executions, e.g. 10000000, whichever of it
#   and FUZZ_SECONDS comes first; unset: time only)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/.build/fuzz
SECONDS_EACH=${FUZZ_SECONDS:-60}
SWIFTC=$(readlink -f "$(command -v swiftc)")
# libFuzzer without its main (bendfuzz's main picks the target, then calls
# LLVMFuzzerRunDriver): `-sanitize=fuzzer` would link the one with main.
FUZZER_LIB=$(ls "$(dirname "$SWIFTC")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -1)
[ -n "$FUZZER_LIB" ] || { echo "fuzz: libclang_rt.fuzzer_no_main-x86_64.a not found beside $SWIFTC (the Swift toolchain's compiler-rt)"; exit 1; }

# -sanitize-coverage: what clang's -fsanitize=fuzzer turns on. lld: gold fails on the
# ASan-instrumented objects ("internal error in format_file_lineno").
echo "fuzz: building the fuzz targets (release, AddressSanitizer + libFuzzer coverage) in .build/fuzz"
swift build -c release --build-path "$BUILD" --product BendFuzz \
  -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
  -Xswiftc -DBEND_FUZZING -Xswiftc -use-ld=lld -Xlinker "$FUZZER_LIB" -Xlinker -lstdc++ >"$BUILD.log" 2>&1 ||
  { tail -30 "$BUILD.log"; echo "fuzz: the build failed"; exit 1; }
BIN=$BUILD/release/BendFuzz

TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || mapfile -t TARGETS < <("$BIN" --list)
mkdir -p "$BUILD/artifacts" "$BUILD/logs"
failed=0
rows=()
for t in "${TARGETS[@]}"; do
  [ -d "$ROOT/Fuzz/corpus/$t" ] || { echo "fuzz: no target '$t'; the targets: $("$BIN" --list | tr '\n' ' ')"; failed=1; continue; }
  mkdir -p "$BUILD/corpus/$t"
  log=$BUILD/logs/$t.log
  echo "fuzz: $t for $SECONDS_EACH s"
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 "$BIN" "$t" -max_total_time="$SECONDS_EACH" \
    -timeout="${FUZZ_TIMEOUT:-10}" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$BUILD/artifacts/$t-" "$BUILD/corpus/$t" "$ROOT/Fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o ' cov: [0-9]*' "$log" | tail -1 | tr -dc 0-9)
  ft=$(grep -o ' ft: [0-9]*' "$log" | tail -1 | tr -dc 0-9)
  units=$(grep -o ' corp: [0-9]*' "$log" | tail -1 | tr -dc 0-9)
  leaks=$(grep -c 'ERROR: LeakSanitizer' "$log")
  timeouts=$(grep -c 'ALARM: working on the last Unit' "$log")
  ooms=$(grep -c 'out-of-memory' "$log")
  crashes=$(grep -cE 'ERROR: AddressSanitizer|deadly signal|Fatal error|ERROR: libFuzzer' "$log")
  result=ok
  if [ "$rc" != 0 ] || [ $((leaks + timeouts + ooms + crashes)) -gt 0 ]; then
    result=FAILED; failed=1
  fi
  rows+=("$(printf '%-14s %12s %9s %7s %7s %7s %8s %6s %9s %5s  %s' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${units:-?}" "$crashes" "$leaks" "$timeouts" "$ooms" "$result")")
done

echo
echo "fuzz: $SECONDS_EACH s per target ($(nproc) cores; libFuzzer, one process per target)"
printf '%-14s %12s %9s %7s %7s %7s %8s %6s %9s %5s  %s\n' target executions exec/s cov ft corpus crashes leaks timeouts ooms result
printf '%s\n' "${rows[@]}"
if [ "$failed" != 0 ]; then
  for f in "$BUILD"/artifacts/*; do [ -e "$f" ] && echo "fuzz: failing input $f"; done
  for t in "${TARGETS[@]}"; do
    grep -qE 'ERROR|ALARM|deadly signal|Fatal error|out-of-memory' "$BUILD/logs/$t.log" 2>/dev/null &&
      { echo "--- $t (.build/fuzz/logs/$t.log):"; grep -m1 -B2 -A25 -E 'ERROR|ALARM|deadly signal|Fatal error|out-of-memory' "$BUILD/logs/$t.log"; }
  done
  exit 1
fi
