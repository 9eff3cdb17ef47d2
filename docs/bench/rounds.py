#!/usr/bin/env python3
"""Differences between JMH benchmarks measured in rounds, robust to the drift of a shared machine.

JMH runs every fork of one benchmark before the next, so on a machine whose speed drifts over minutes the
difference of two benchmarks' means carries the drift. This runs ROUNDS short JMH runs (1 fork each, the
benchmarks of one run back to back within a minute), takes each round's difference of every benchmark to
the baseline, and prints the median and quartiles of those per-round differences.

usage: docs/bench/rounds.py ROUNDS BASELINE REGEX [extra JMH args...]
e.g.   docs/bench/rounds.py 9 counterRead 'TimekeeperReadBenchmark.(counterRead|monotonicNanos|nanosById)$'
Needs benchmarks/target/benchmarks.jar (mvn -B -q -Pjmh -DskipTests package) and a JDK 25 (TK4J_JAVA, else
the Temurin 25 path of this machine kind).
"""
import json, os, statistics, subprocess, sys, tempfile

def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, baseline, regex, extra = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    java = os.environ.get("TK4J_JAVA", "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java")
    diffs, means = {}, {}
    for r in range(rounds):
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            subprocess.run([java, "-jar", "benchmarks/target/benchmarks.jar", regex, "-f", "1", "-wi", "2", "-i", "3",
                            "-rf", "json", "-rff", out.name, *extra], check=True, stdout=subprocess.DEVNULL)
            results = {b["benchmark"].rsplit(".", 1)[1]: b["primaryMetric"]["score"] for b in json.load(open(out.name))}
        base = results[baseline]
        for name, score in results.items():
            means.setdefault(name, []).append(score)
            if name != baseline:
                diffs.setdefault(name, []).append(score - base)
        print(f"round {r + 1}/{rounds}: " + ", ".join(f"{n} {s - base:+.2f}" for n, s in results.items() if n != baseline),
              file=sys.stderr)
    print(f"{baseline}: median {statistics.median(means[baseline]):.2f} ns over {rounds} rounds")
    for name in sorted(diffs, key=lambda n: statistics.median(diffs[n])):
        d = sorted(diffs[name])
        q = statistics.quantiles(d, n=4) if len(d) > 1 else [d[0], d[0], d[0]]
        print(f"{name:28s} {statistics.median(d):+.2f} ns (quartiles {q[0]:+.2f} .. {q[2]:+.2f}; max {d[-1]:+.2f})")

if __name__ == "__main__":
    main()
