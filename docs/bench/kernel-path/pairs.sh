#!/bin/bash
# Before/after JMH pairs on a shared, loaded machine: short runs of the kernel-path benchmarks, the jar of the
# commit before (BEFORE_JAR) and of this one (AFTER_JAR) alternating, each run's ratios taken within itself;
# summarise with pairs.py. From the repository root, after building both jars:
#   BEFORE_JAR=/tmp/before.jar AFTER_JAR=benchmarks/target/benchmarks.jar PAIRS=8 bash docs/bench/kernel-path/pairs.sh
J=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
OUT=${OUT:-/tmp/kernel-path-pairs}
mkdir -p "$OUT"
RE='ClockReadBenchmark.(systemNanoTime|kernelNanosMonotonicConstant|kernelNanosRealtimeConstant|kernelTimeMonotonic)$'
for k in $(seq 1 "${PAIRS:-8}"); do
  for v in before after; do
    jar=$BEFORE_JAR; [ $v = after ] && jar=$AFTER_JAR
    until $J -jar "$jar" "$RE" -f 3 -wi 3 -i 5 -w 300ms -r 300ms -prof gc -rf json -rff "$OUT/jmh-pair$k-$v.json" \
        > "$OUT/jmh-pair$k-$v.txt" 2>&1 && ! grep -q "Unable to acquire the JMH lock" "$OUT/jmh-pair$k-$v.txt"; do
      sleep 10 # another JMH run holds /tmp/jmh.lock
    done
  done
done
python3 "$(dirname "$0")/pairs.py" "$OUT" min
