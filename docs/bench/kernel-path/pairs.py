"""Summarises pairs.sh: per run, a statistic (min, median or mean) of each benchmark's 15 iterations divided by
systemNanoTime's same statistic; then, per jar and benchmark, the median, mean +- 2 standard errors and range over
the runs. min is the least disturbed iteration of each: on a loaded machine the one closest to the cost alone.
Usage: python3 pairs.py DIR [min|median|mean]"""
import json,glob,statistics,math,sys
stat=sys.argv[2] if len(sys.argv)>2 else 'min'
res={}
for f in sorted(glob.glob(sys.argv[1] + '/jmh-pair*-*.json')):
    v=f.split('-')[-1][:-5]
    try: d=json.load(open(f))
    except Exception: continue
    rows={}
    for b in d:
        raw=sorted(x for fork in b['primaryMetric']['rawData'] for x in fork)
        val={'median':statistics.median(raw),'min':raw[0],'mean':b['primaryMetric']['score']}[stat]
        rows[b['benchmark'].split('.')[-1]]=(val,b['secondaryMetrics'].get('gc.alloc.rate.norm',{}).get('score'))
    base=rows['systemNanoTime'][0]
    for k,(s,a) in rows.items():
        res.setdefault((v,k),[]).append((s/base,s,a))
print('per-run statistic of the 15 iterations:',stat)
for (v,k),xs in sorted(res.items()):
    r=[x[0] for x in xs]; ns=[x[1] for x in xs]; al=max(x[2] for x in xs)
    m=statistics.mean(r); sd=statistics.stdev(r) if len(r)>1 else 0
    print(f"{v:6s} {k:30s} n={len(r)} ratio median {statistics.median(r):.3f} mean {m:.3f} +- {sd/math.sqrt(len(r))*2:.3f} (2 s.e.) range {min(r):.3f}-{max(r):.3f}  ns median {statistics.median(ns):.1f}  max B/op {al:.4f}")
