#!/usr/bin/env bash
# Fails when a target imports a module its layer must not see (see Package.swift):
# the engine imports nothing but Synchronization; control never sees ALSA or files;
# inputs never see audio output.
set -u
cd "$(dirname "$0")/.."
status=0
check() {  # target, allowed imports (regex)
    local target=$1 allowed=$2
    while IFS=: read -r file _ line; do
        mod=$(sed -E 's/^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*import[[:space:]]+(struct |class |enum |func |var )?([A-Za-z_]+).*/\3/' <<<"$line")
        if ! [[ $mod =~ ^($allowed)$ ]]; then
            echo "layer check: $file imports $mod, which $target must not use" >&2
            status=1
        fi
    done < <(grep -rnE '^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*import ' "Sources/$target" --include='*.swift')
}
check BendEngine  'Synchronization'
check BendSystem  'Glibc|Synchronization|CFloatEnv|CSystem'
check BendControl 'BendEngine|BendSystem|Foundation|Glibc|Synchronization'
check BendAudio   'BendEngine|BendSystem|BendControl|CALSA|CSndFile|CSampleRate|Foundation|Glibc|Synchronization|Dispatch'
check BendInput   'BendControl|BendEngine|BendSystem|Foundation|Glibc|Synchronization|Dispatch'
check BendEvdev   'BendControl|BendEngine|BendSystem|CEvdev|Foundation|Glibc|Synchronization|Dispatch'
check BendPeers   'BendControl|BendEngine|BendSystem|CSodium|CBluetooth|CAvahi|Foundation|Glibc|Synchronization|Dispatch'
check BendOSC     'BendControl|BendEngine|BendSystem|CLO|Foundation|Glibc|Synchronization|Dispatch'
check BendWeb     'BendControl|BendEngine|BendSystem|CWebsockets|CQRencode|CSSL|CSodium|Foundation|Glibc|Synchronization|Dispatch'
check BendBench   'BendAudio|BendControl|BendEngine|BendEvdev|BendOSC|BendPeers|BendWeb|BendSystem|Foundation|Glibc|Synchronization|Dispatch'
check BendApp     'BendBench|BendEvdev|BendOSC|BendPeers|BendWeb|CEvdev|CGetopt|BendEngine|BendSystem|BendControl|BendAudio|BendInput|Foundation|Glibc|Synchronization|Dispatch|CALSA'
exit $status
