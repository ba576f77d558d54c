#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Prints the Depends line for executables and shared objects (the bendsynth binary, the
# LV2 plugin's bendsynth.so): the Debian packages holding the shared libraries each links
# directly (its DT_NEEDED entries, found where ldd resolves them), merged. Libraries
# outside dpkg's database (a Swift toolchain's, for a non-static build) are left out.
# With merged /usr, dpkg knows a library by its /lib path or its /usr/lib path.
set -eu
list="${TMPDIR:-/tmp}/deb-depends.$$"
trap 'rm -f "$list"' EXIT
for bin in "$@"; do
    ldd "$bin" > "$list"
    objdump -p "$bin" | awk '/NEEDED/ {print $2}' | while read -r soname; do
        path=$(awk -v n="$soname" '$1 == n && $3 ~ /^\// {print $3}' "$list")
        [ -n "$path" ] || continue
        for p in "$path" "$(realpath "$path")" "${path#/usr}" "$(realpath "$path" | sed 's|^/usr||')"; do
            pkg=$(dpkg -S "$p" 2>/dev/null | head -1 | cut -d: -f1) && [ -n "$pkg" ] && { echo "$pkg"; break; }
        done
    done
done | sort -u | paste -sd, | sed 's/,/, /g'
