#!/usr/bin/env bash
# Assembles the variants here and measures them against the bare rdtscp read (harness.c). About 2 minutes.
# Needs gcc and GNU as (binutils); x86_64 with rdtscp. Usage: docs/bench/seqlock-stub/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gcc -O2 -o "$out/harness" "$here/harness.c"
bins=()
for s in previous current three-epochs check-before-value floor-no-checks; do
    src="$here/$s.s"; [ $s = current ] && src="$here/../../../core/src/main/java/org/timekeeping4j/machine/x86-seqlock-read.s"
    as --64 -o "$out/$s.o" "$src"
    objcopy -O binary -j .text "$out/$s.o" "$out/$s.bin"
    bins+=("$out/$s.bin")
done
cd "$out" && ./harness "${bins[@]##*/}"
