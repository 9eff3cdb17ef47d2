#!/usr/bin/env bash
# chrony-bounds.sh: the proof of BoundedClock.system() against a reference whose true time is known, while a real
# chronyd steers the kernel clock. Opt-in, Linux, root: it changes the kernel clock of the whole machine for the
# length of the run, then puts it back (scripts/chrony/lab.sh). Results of a run: docs/BOUNDS.md.
#
# The reference (scripts/chrony/BoundsLab.java reference) is a model on MONOTONIC_RAW: the undisciplined clock plus
# a phase that wanders (a frequency random walk, steps of up to 1.5 ppm every 10 s within +-8 ppm, and a phase
# random walk); chronyd follows it through its SHM refclock (samples with 100 ns of noise, 10 a second). The
# scenario, for -t SECONDS (720 by default):
#   start          REALTIME set 500 us ahead of true time before chronyd starts: chronyd slews it out
#   0.40 x SECONDS REALTIME set 200 ms ahead (a step): chronyd steps it back (makestep 0.1 -1)
#   0.55 - 0.88    the reference lost (4 minutes of 12): chronyd free-runs on its last frequency
#   0.95           chronyd stopped (as an upgrade or a crash would): the chrony source says nothing from then, and
#                  the status must end UNKNOWN
# Meanwhile two JVMs read BoundedClock.system() --rate times a second each, one with -Dtimekeeping4j.bounds=chrony
# (chronyd's tracking report, asked over 127.0.0.1:323), one with adjtimex (the kernel's maxerror, as chronyd
# writes it), each read bracketed by MONOTONIC_RAW reads. The judge (BoundsLab judge) computes true time at both
# ends of each bracket and counts the reads whose interval certainly misses it: the run passes with 0 such reads
# from the chrony source and at least 10^6 reads. The adjtimex source's figures are reported, not judged: the
# kernel's maxerror leaves out the correction chronyd is still slewing, so it is no bound (docs/BOUNDS.md).
# chronyd's own tracking report is logged every 2 s and summarised beside them.
#
# Usage: sudo scripts/chrony-bounds.sh [-t SECONDS] [--rate N] [--seed N] [--drift PPM] [--unit N] [--keep-logs]
set -euo pipefail
name=chrony-bounds
. "$(dirname "${BASH_SOURCE[0]}")/chrony/lab.sh"
seconds=720 rate=2000 seed=1 drift=50 unit=0 keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    -t|--duration) seconds="${2:?}"; shift 2 ;;
    --rate) rate="${2:?}"; shift 2 ;;
    --seed) seed="${2:?}"; shift 2 ;;
    --drift) drift="${2:?}"; shift 2 ;;
    --unit) unit="${2:?}"; shift 2 ;;
    --keep-logs) keep=1; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
lab_whole_numbers "$seconds" "$rate" "$seed" "$drift" "$unit"
[ "$seconds" -ge 60 ] || die "-t must be at least 60 seconds (the scenario needs room)"
[ "$rate" -ge 1 ] && [ "$rate" -le 20000 ] || die "--rate must be 1 to 20000 reads a second"
if ss -uln 2>/dev/null | grep -q '127.0.0.1:323 \|\*:323 \|0.0.0.0:323 '; then
  die "UDP port 323 is in use: the chrony source reads chronyd there; stop what listens (ss -ulnp)"
fi
lab_init
step_at=$((seconds * 40 / 100)) lost_from=$((seconds * 55 / 100)) lost_to=$((seconds * 88 / 100))
stop_at=$((seconds * 95 / 100))
java_lab() { "$jdk/bin/java" --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -cp "$here/cli/target/tk4j.jar" "$@"; }

echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(uname -r), $(chronyd -v | head -n 1), tk4j at $(cd "$here" && git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "   $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "   scenario over $seconds s: REALTIME +500 us at start, +200 ms at ${step_at} s, reference lost ${lost_from}-${lost_to} s, chronyd stopped at ${stop_at} s; $rate reads/s per source; drift $drift ppm"
lab_save
# Started directly: $! must be the JVM itself, not a subshell that a kill would leave behind.
java_lab "$here/scripts/chrony/BoundsLab.java" reference "$work/state" "$unit" "$seed" $((seconds + 30)) 500 \
  "$step_at" 200 "$lost_from" "$lost_to" "$work/knots" >"$work/writer.log" 2>&1 &
writer_pid=$!
for i in $(seq 1 100); do grep -q '^ready' "$work/writer.log" && break; sleep 0.3; done
grep -q '^ready' "$work/writer.log" || { cat "$work/writer.log" >&2; die "the reference did not start"; }
lab_chronyd "makestep 0.1 -1" "cmdport 323" "bindcmdaddress 127.0.0.1" "cmdallow 127.0.0.1" \
  "bindcmdaddress $work/chronyd.sock"
pids=()
for src in chrony adjtimex; do
  java_lab -Dtimekeeping4j.bounds="$src" -Dtimekeeping4j.bounds.drift="$drift" \
    "$here/scripts/chrony/BoundsLab.java" read "$seconds" "$rate" "$work/reads-$src" >"$work/read-$src.log" 2>&1 &
  pids+=($!)
done
( while sleep 2; do echo "$(date +%s.%N),$(chronyc -h "$work/chronyd.sock" -n -c tracking 2>/dev/null)"; done ) \
  >"$work/tracking.csv" &
tracker=$!
lab_wait_sync
# chronyd stopped at stop_at on the reference's clock (its "t=Ns" lines), the readers reading on.
while ! grep -qE "^t=${stop_at}s" "$work/writer.log"; do
  kill -0 "$writer_pid" 2>/dev/null || die "the reference exited before chronyd was to stop"
  sleep 0.2
done
stopped_at=$(grep -E "^t=${stop_at}s" "$work/writer.log" | head -n 1 | sed 's/^t=\([0-9]*\)s.*/\1/')
kill "$chronyd_pid"; wait "$chronyd_pid" 2>/dev/null || true; chronyd_pid=""
echo "   chronyd stopped at t=${stopped_at} s"
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
pkill -P "$tracker" 2>/dev/null; kill "$tracker" 2>/dev/null || true
for src in chrony adjtimex; do echo "== reader $src"; sed 's/^/   /' "$work/read-$src.log"; done
echo "== the reference (every 60 s)"
grep -E '^t=[0-9]+s|set|lost|back' "$work/writer.log" | awk '/^t=/ { split($1, a, "="); if ((a[2] + 0) % 60 != 0) next } { print "   " $0 }'
[ "$rc" -eq 0 ] || die "a reader failed"
lab_stop
echo "== chronyd's tracking (every 2 s): ClockBound's formula root_delay/2 + root_dispersion + |system time|"
awk -F, 'NF > 14 { b = $12 / 2 + $13 + ($6 < 0 ? -$6 : $6); printf "%.0f\n", b * 1e9 }' "$work/tracking.csv" | sort -n \
  | awk '{ v[++n] = $1 } END { if (n == 0) { print "   no reports"; exit }
    printf "   %d reports: median %.1f us, p99 %.1f us, max %.1f us\n", n, v[int((n + 1) / 2)] / 1e3, v[int(n * 0.99) + (n * 0.99 > int(n * 0.99))] / 1e3, v[n] / 1e3 }'
echo "== judge"
set +e
java_lab -Dlab.stoppedAt="$stop_at" "$here/scripts/chrony/BoundsLab.java" judge "$work/knots" "$drift" "$work/reads-chrony"
judged=$?
java_lab -Dlab.stoppedAt="$stop_at" "$here/scripts/chrony/BoundsLab.java" judge "$work/knots" 500 "$work/reads-adjtimex" | sed 's/^/   (not judged) /'
set -e
echo "== result: $([ "$judged" -eq 0 ] && echo PASSED || echo FAILED)"
exit "$judged"
