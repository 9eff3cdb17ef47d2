#!/usr/bin/env bash
# Assembles core's machine/x86-vclock-read.S (the OVERFLOW read) and x86-vdso-read.S (LEGACY) for every counter
# slot and prints the bytes (development aid only).
set -euo pipefail
cd "$(dirname "$0")"
t=$(mktemp -d)
declare -A SLOTS=(
  [rdtscp]='.byte 0x0f,0x1f,0x80,0,0,0,0; rdtscp'
  [lfence_rdtsc]='.byte 0x0f,0x1f,0x44,0,0; lfence; rdtsc'
  [rdtsc]='.byte 0x0f,0x1f,0x80,0,0,0,0,0x90; rdtsc'
  [test]='mov rax, r11; mov rdx, r11; shr rdx, 32'
)
for src in x86-vclock-read.S x86-vdso-read.S; do for s in rdtscp lfence_rdtsc rdtsc test; do
  sed "s/^\(\s*\)SLOT$/\1${SLOTS[$s]}/" ../../../core/src/main/java/org/timekeeping4j/machine/$src > "$t/a.S"
  as --64 -o "$t/a.o" "$t/a.S"
  objcopy -O binary -j .text "$t/a.o" "$t/a.bin"
  echo "$src slot=$s $(stat -c %s "$t/a.bin") bytes"
  [ "${1:-}" = -d ] && objdump -d -M intel "$t/a.o" | tail -n +7
  od -An -v -tx1 "$t/a.bin" | tr -s ' \n' ' '; echo
done; done
rm -rf "$t"
