#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The shipped plugin's size (`make bench`; printed, never asserted): bendsynth.so as
# `make lv2` builds and `make install` installs it (stripped), its sections, the
# libraries it needs (NEEDED), and what its code and data come from — the same objects
# linked once more with a link map, summed by archive (the Swift runtime's libraries) or
# by the project's module.
# usage: Benchmarks/lv2size.sh BUNDLE OBJECT_LIST ICU_STUB
set -eu -o pipefail
BUNDLE=$1; OBJECTS=$2; STUB=$3
SO=$BUNDLE/bendsynth.so
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
echo "| what | size |"
echo "|---|---|"
echo "| bendsynth.so, stripped (as installed) | $(mb "$(stat -c %s "$SO")") |"
read -r text data bss _ < <(size "$SO" | tail -1)
echo "| its code (text) / data / bss | $(mb "$text") / $(mb "$data") / $(mb "$bss") |"
echo "| the whole bundle | $(mb "$(du -sb "$BUNDLE" | cut -f1)") |"
echo
echo "NEEDED (readelf -d): $(readelf -d "$SO" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | paste -sd' ' -)"
echo
swiftc -emit-library -static-stdlib -o "$TMP/map.so" "$STUB" @"$OBJECTS" -Xlinker --version-script=dist/lv2/exports.map \
  -Xlinker --gc-sections -Xlinker -z -Xlinker nodelete -Xlinker -Map="$TMP/map" 2>/dev/null
python3 - "$TMP/map" <<'PY'
import collections, re, sys
sizes = collections.Counter()
section = None
for line in open(sys.argv[1]):
    m = re.match(r'^ (\.\S+)(?:\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+))?\s*$', line)
    if m and m.group(2) is None:
        section = m.group(1)
        continue
    if m:
        section, size, origin = m.group(1), int(m.group(2), 16), m.group(3)
    else:
        m = re.match(r'^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)\s*$', line)
        if not (m and section):
            continue
        size, origin = int(m.group(1), 16), m.group(2)
    if section.startswith(('.debug', '.comment', '.note')):
        continue
    section = None
    parts = origin.split('(')[0].split('/')
    name = 'bendsynth ' + parts[-2].removesuffix('.build') if origin.split('(')[0].endswith('.o') and len(parts) > 1 and parts[-2].endswith('.build') else parts[-1]
    sizes[name] += size
total = sum(sizes.values())
print('| from (linked with a map, before strip) | MB | share |')
print('|---|---|---|')
project = sum(v for k, v in sizes.items() if k.startswith('bendsynth '))
rows = [(k, v) for k, v in sizes.most_common() if not k.startswith('bendsynth ')][:12]
rows.append(('bendsynth\'s own modules, all together', project))
for k, v in sorted(rows, key=lambda r: -r[1]):
    print(f'| {k} | {v / 1e6:.2f} | {100 * v / total:.0f} % |')
print(f"| all input sections | {total / 1e6:.2f} | |")
PY
