#!/bin/sh
# Reproduces docs/PERFORMANCE.md's kernel-path investigation. From the repository root:
#   mvn -B -q -pl benchmarks -am package -DskipTests && sh docs/bench/kernel-path/run.sh
set -e
JDK=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
OUT=${OUT:-/tmp/kernel-path-probe}
mkdir -p "$OUT"
"$JDK/bin/javac" -cp benchmarks/target/benchmarks.jar -d "$OUT" docs/bench/kernel-path/KernelPathProbe.java
"$JDK/bin/java" --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar:"$OUT" KernelPathProbe "$@"
gcc -O2 -o "$OUT/vdso_vs_libc" docs/bench/kernel-path/vdso_vs_libc.c -ldl && "$OUT/vdso_vs_libc"
