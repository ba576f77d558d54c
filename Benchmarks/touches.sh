#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes a touch script (JSON Lines) holding TOUCHES touches down for SECONDS, each
# moving every STEP seconds (x sweeps pitch 0.5…2 and back, y the gain, scaled by
# 1/√TOUCHES so the mix stays near full scale), staggered so
# the moves spread evenly over time; all touches lift at the end.
# usage: Benchmarks/touches.sh TOUCHES SECONDS [STEP] > FILE.jsonl
set -eu
awk -v n="$1" -v secs="$2" -v step="${3:-0.1}" 'BEGIN {
  for (i = 1; i <= n; i++) printf "{\"t\": 0, \"type\": \"down\", \"id\": %d, \"x\": %.4f, \"y\": %.4f}\n", i, 0.25 + 0.5 * (i % 97) / 97, 0.5 / sqrt(n)
  m = int(secs / step)
  for (k = 1; k < m; k++)
    for (i = 1; i <= n; i++) {
      t = (k + (i - 1) / n) * step
      ph = t / 4 + i / n
      x = 0.25 + 0.75 * (ph - int(ph)); if (x > 1) x = 1
      printf "{\"t\": %.5f, \"type\": \"move\", \"id\": %d, \"x\": %.4f, \"y\": %.4f}\n", t, i, x, (0.3 + 0.4 * ((i * 7 + k) % 11) / 11) / sqrt(n)
    }
  for (i = 1; i <= n; i++) printf "{\"t\": %.5f, \"type\": \"up\", \"id\": %d}\n", secs, i
}'
