#!/usr/bin/env python3
"""Reduces JMH JSON results (-rf json) to what docs/PERFORMANCE.md and docs/ADAPTERS.md cite, in place.

Kept per benchmark: the settings (JMH and JDK versions, JVM arguments, forks, iterations and their times,
params), the primary metric's score, error, confidence interval, unit and per-iteration raw data (forks x
iterations numbers), and of the secondary metrics only gc.alloc.rate.norm's score, error and unit (the
B/op the tables cite). Dropped: percentiles, histograms and the other profilers' raw data, which made up
almost all of the bytes. Re-run the command a section gives to get JMH's full output.

Usage: python3 docs/bench/jmh_slim.py docs/jmh/*.json
"""
import json
import sys

KEEP = ["jmhVersion", "benchmark", "mode", "threads", "forks", "jvm", "jvmArgs", "jdkVersion", "vmName",
        "vmVersion", "warmupIterations", "warmupTime", "warmupBatchSize", "measurementIterations",
        "measurementTime", "measurementBatchSize", "params"]
PRIMARY = ["score", "scoreError", "scoreConfidence", "scoreUnit", "rawData"]
SECONDARY = {"gc.alloc.rate.norm": ["score", "scoreError", "scoreUnit"],
             "·gc.alloc.rate.norm": ["score", "scoreError", "scoreUnit"]}


def slim(entry):
    out = {k: entry[k] for k in KEEP if k in entry}
    out["primaryMetric"] = {k: entry["primaryMetric"][k] for k in PRIMARY if k in entry["primaryMetric"]}
    secondary = {}
    for name, metric in entry.get("secondaryMetrics", {}).items():
        if name in SECONDARY:
            secondary[name] = {k: metric[k] for k in SECONDARY[name] if k in metric}
    if secondary:
        out["secondaryMetrics"] = secondary
    return out


for path in sys.argv[1:]:
    with open(path) as f:
        results = json.load(f)
    with open(path, "w") as f:
        # One benchmark per line: compact, and a diff still shows which benchmark changed.
        f.write("[\n" + ",\n".join(json.dumps(slim(e), separators=(",", ":"), ensure_ascii=False)
                                   for e in results) + "\n]\n")
