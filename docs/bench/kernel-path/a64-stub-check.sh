#!/bin/sh
# Runs the aarch64 stub of machine.ClockGettimeStub under qemu-user on an x86_64 machine (binutils-aarch64-linux-gnu,
# qemu-user-static). From the repository root, after `mvn -B -q -pl core -am compile`:
#   sh docs/bench/kernel-path/a64-stub-check.sh
set -e
JDK=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
cd "$out"
"$JDK/bin/java" --enable-native-access=ALL-UNNAMED -cp "$here/../../../core/target/classes" "$here/GenA64.java"
cp "$here/a64-stub-check.s" .
aarch64-linux-gnu-as a64-stub-check.s -o check.o
aarch64-linux-gnu-ld -N -static check.o -o check 2>/dev/null
qemu-aarch64-static ./check && echo "aarch64 stub: OK"
