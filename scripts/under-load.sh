#!/usr/bin/env bash
# scripts/under-load.sh: runs a command several times while busy loops keep every core busy, to show that a test's
# verdict does not depend on the machine being idle ("a test must not turn red because the machine is busy").
#
#   scripts/under-load.sh [-r RUNS] [-l LOOPS] [-n NICE] -- COMMAND...
#
# RUNS (default 3): how often COMMAND runs. LOOPS (default: the number of cores): how many `yes >/dev/null` busy
# loops run, at niceness NICE (default 0), for the whole of the runs; they are killed by their own process ids at
# the end (also on Ctrl-C). Each run's exit status and duration are printed, with the load average; the script's
# exit status is 0 when every run exited 0, else 1.
#
# Example (a Maven run inherits the niceness of mvn: nice -n 19 mvn against loops at nice 0 is the hardest case):
#   scripts/under-load.sh -r 5 -- nice -n 19 mvn -B -q -pl core -am test -Dtest='ClocksTest' \
#     -Dsurefire.failIfNoSpecifiedTests=false
set -euo pipefail

runs=3
loops=$(nproc)
niceness=0
while [ $# -gt 0 ]; do
  case $1 in
    -r) runs=$2; shift 2 ;;
    -l) loops=$2; shift 2 ;;
    -n) niceness=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "under-load: unknown option '$1' (usage: scripts/under-load.sh [-r RUNS] [-l LOOPS] [-n NICE] -- COMMAND...)" >&2
       exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "under-load: no command given (usage: scripts/under-load.sh [-r RUNS] [-l LOOPS] [-n NICE] -- COMMAND...)" >&2; exit 2; }

pids=()
stop_loops() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap stop_loops EXIT INT TERM

for _ in $(seq "$loops"); do
  nice -n "$niceness" yes >/dev/null &
  pids+=("$!")
done
echo "under-load: $loops busy loop(s) at nice $niceness (pids ${pids[*]}); $runs run(s) of: $*"
sleep 2 # let the load average start to show it

failed=0
for r in $(seq "$runs"); do
  t0=$(date +%s.%N)
  rc=0
  "$@" || rc=$?
  t1=$(date +%s.%N)
  printf 'under-load: run %d of %d: exit %d after %s s (load average %s)\n' "$r" "$runs" "$rc" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')" "$(cut -d' ' -f1-3 /proc/loadavg)"
  [ "$rc" = 0 ] || failed=1
done
stop_loops
[ "$failed" = 0 ] && echo "under-load: every run passed" || echo "under-load: FAILED: some run did not exit 0"
exit "$failed"
