#!/usr/bin/env bash
# chrony-events.sh: the proof that events convert exactly long after they were recorded (the kernel's parameter
# history) while a real chronyd steers the kernel clock. Opt-in, Linux, root: it changes the kernel clock of the
# whole machine for the length of the run, then puts it back (scripts/chrony/lab.sh). Results: docs/PERFORMANCE.md.
#
# chronyd follows the lab's synthetic reference (scripts/chrony/ClockLab.java writer: a frequency that wanders
# continuously, 3 ppm of sine over 40 s plus a random walk, and a phase random walk), so the kernel changes its
# rate at most of its updates. Meanwhile scripts/chrony/EventsLab.java records --rate events a second for -t
# seconds at random moments, each Clocks.ticks() between two clock_gettime reads of its clock (REALTIME, MONOTONIC,
# BOOTTIME, TAI in turn), and every 5 s exports them all (EventRecorder.export) and judges each event up to --max-age
# seconds old: exact ones must lie inside their bracket, flagged ones within their bound (Clocks.snapshotAt).
# Passes with no dishonest conversion and at least 10^6 events judged at an age of 50 s or more.
# --clocksource NAME runs it on that clocksource (e.g. kvm-clock), switched back at the end.
#
# Usage: sudo scripts/chrony-events.sh [-t SECONDS] [--rate N] [--max-age S] [--clocksource NAME] [--unit N]
#        [--seed N] [--keep-logs]
set -euo pipefail
name=chrony-events
. "$(dirname "${BASH_SOURCE[0]}")/chrony/lab.sh"
seconds=300 rate=3400 max_age=60 unit=0 seed=1 keep=0 clocksource=
while [ $# -gt 0 ]; do
  case "$1" in
    -t|--duration) seconds="${2:?}"; shift 2 ;;
    --rate) rate="${2:?}"; shift 2 ;;
    --max-age) max_age="${2:?}"; shift 2 ;;
    --clocksource) clocksource="${2:?}"; shift 2 ;;
    --unit) unit="${2:?}"; shift 2 ;;
    --seed) seed="${2:?}"; shift 2 ;;
    --keep-logs) keep=1; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
lab_whole_numbers "$seconds" "$rate" "$max_age" "$unit" "$seed"
[ "$seconds" -ge 10 ] || die "-t must be at least 10 seconds"
[ "$max_age" -ge 1 ] && [ "$max_age" -le 3600 ] || die "--max-age must be 1 to 3600 seconds (the history kept)"
lab_init
[ -z "$clocksource" ] || lab_clocksource "$clocksource"
echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(uname -r), $(chronyd -v | head -n 1), tk4j at $(cd "$here" && git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "   $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "   $rate events/s for $seconds s, each judged at ages 0-$max_age s"
lab_save
# Started directly: $! must be the JVM itself, not a subshell that a kill would leave behind.
"$jdk/bin/java" --enable-native-access=ALL-UNNAMED "$here/scripts/chrony/ClockLab.java" \
  writer "$work/state" "$unit" "$seed" 0 0 >"$work/writer.log" 2>&1 &
writer_pid=$!
lab_chronyd "makestep 1 3" "cmdport 0" "bindcmdaddress $work/chronyd.sock"
lab_wait_sync
sleep 10 # chronyd settles into steering
set +e
"$jdk/bin/java" --enable-native-access=ALL-UNNAMED -Dtimekeeping4j.history="$max_age" -Xmx1g ${TK4J_EVENTS_JAVA_OPTS:-} \
  -cp "$here/cli/target/tk4j.jar" "$here/scripts/chrony/EventsLab.java" "$seconds" "$rate" "$max_age"
rc=$?
set -e
echo "== chronyd's steering (the writer's lines, every 60 s)"
awk '/^t=/ { split($1, a, "="); if ((a[2] + 0) % 60 < 1) print "   " $0 }' "$work/writer.log" | cut -c1-160
changes=$(awk '/^t=/ { for (i = 1; i <= NF; i++) if ($i ~ /^freq=/) { if (n++ && $i != last) c++; last = $i } } END { print c + 0 "/" n + 0 }' "$work/writer.log")
echo "   kernel frequency changed in $changes seconds"
lab_stop
echo "== result: $([ "$rc" -eq 0 ] && echo PASSED || echo FAILED)"
exit "$rc"
