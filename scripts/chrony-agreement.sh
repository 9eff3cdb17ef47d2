#!/usr/bin/env bash
# chrony-agreement.sh: `tk4j verify agreement` while a real chronyd steers the kernel clock.
# Opt-in, Linux, root: it changes the kernel clock of the whole machine for the length of the run, then puts it back.
#
# No network is needed: chronyd (installed with apt-get when missing) runs by hand with a private configuration whose
# only source is its SHM reference clock, fed by scripts/chrony/ClockLab.java with a synthetic reference (the
# undisciplined clock plus a wandering phase: random walk, a few ppm of frequency wander, a step of --step-us every
# --step-period seconds). chronyd keeps changing the kernel's frequency to follow it. Meanwhile this runs
#   ./tk4j verify agreement --path fast   -c REALTIME -c MONOTONIC -c BOOTTIME -c TAI -c MONOTONIC_RAW -t SECONDS
#   ./tk4j verify agreement --path kernel (same clocks, the control)
# and prints the evidence that the clock was being steered in each window (kernel frequency and tick from adjtimex
# every second, chronyc tracking / sourcestats). On exit (also on error or Ctrl-C) it stops its chronyd and writer,
# restores the kernel's NTP state saved at the start (frequency, tick, status, PLL offset, TAI offset) and slews
# REALTIME back onto the line it followed before. Results of a run: docs/CHRONY.md.
#
# Usage: sudo scripts/chrony-agreement.sh [-t SECONDS] [--unit N] [--seed N] [--step-us US] [--step-period S]
#                                         [--settle S] [--keep-logs]
set -euo pipefail
name=chrony-agreement
. "$(dirname "${BASH_SOURCE[0]}")/chrony/lab.sh"
seconds=60 unit=0 seed=1 step_us=200 step_period=30 settle=10 keep=0

while [ $# -gt 0 ]; do
  case "$1" in
    -t|--duration) seconds="${2:?}"; shift 2 ;;
    --unit) unit="${2:?}"; shift 2 ;;
    --seed) seed="${2:?}"; shift 2 ;;
    --step-us) step_us="${2:?}"; shift 2 ;;
    --step-period) step_period="${2:?}"; shift 2 ;;
    --settle) settle="${2:?}"; shift 2 ;;
    --keep-logs) keep=1; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
lab_whole_numbers "$seconds" "$unit" "$seed" "$step_us" "$step_period" "$settle"
[ "$seconds" -ge 1 ] || die "-t must be at least 1 second"
lab_init

echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(uname -r), $(chronyd -v | head -n 1)"
echo "== tk4j at $(cd "$here" && git rev-parse --short HEAD 2>/dev/null || echo '?'); tk4j info (head):"
(cd "$here" && ./tk4j info 2>&1 | sed -n '1,/^$/p' | sed '/^$/d; s/^/   /')
echo "== what serves --path fast (Clocks.source() in a fresh JVM):"
"$jdk/bin/java" --enable-native-access=ALL-UNNAMED -cp "$here/cli/target/tk4j.jar" "$here/scripts/chrony/Sources.java" \
  2>&1 | sed 's/^/   /' || true
lab_save
# Started directly, not through lab(): $! must be the JVM itself, not a subshell that a kill would leave it behind.
"$jdk/bin/java" --enable-native-access=ALL-UNNAMED "$here/scripts/chrony/ClockLab.java" \
  writer "$work/state" "$unit" "$seed" "$step_period" "$step_us" >"$work/writer.log" 2>&1 &
writer_pid=$!
lab_chronyd "makestep 1 3" "cmdport 0" "bindcmdaddress $work/chronyd.sock"
lab_wait_sync
echo "   settling $settle s"
sleep "$settle"
cc tracking | grep -E '^(Reference ID|System time|Frequency|Update interval)' | sed 's/^/   /'

# The writer's per-second lines within [from, to): how chronyd was steering the kernel meanwhile.
steering() {
  awk -v from="$1" -v to="$2" '
    NR >= from && NR < to && /reference steps/ { steps = steps " " $6 " (" $2 ")" }
    NR >= from && NR < to && /^t=/ {
      for (i = 1; i <= NF; i++) {
        split($i, kv, "=")
        if (kv[1] == "freq") { f = kv[2] + 0 } else if (kv[1] == "tick") { k = kv[2] + 0 }
        else if (kv[1] == "clock-ref") { e = kv[2] + 0; if (e < 0) e = -e }
        else if (kv[1] == "phase") { p = kv[2] + 0 }
      }
      if (n == 0 || f < fmin) fmin = f; if (n == 0 || f > fmax) fmax = f
      if (n == 0 || k < kmin) kmin = k; if (n == 0 || k > kmax) kmax = k
      if (n > 0 && f != last) changes++
      if (n == 0 || p < pmin) pmin = p; if (n == 0 || p > pmax) pmax = p
      if (n == 0 || e > emax) emax = e
      esum += e; last = f; n++
    }
    END {
      if (n == 0) { print "   (no writer samples in this window)"; exit }
      printf "   steering over %d s: kernel freq %+.3f .. %+.3f ppm, changed in %d of %d seconds; tick %d .. %d\n", \
        n, fmin, fmax, changes, n - 1, kmin, kmax
      printf "   reference phase %+.1f .. %+.1f us; |clock - reference| mean %.1f / max %.1f us\n", \
        pmin, pmax, esum / n, emax
      if (steps != "") printf "   reference stepped by%s us in this window\n", steps
    }' "$work/writer.log"
}

declare -A rcs
for path in fast kernel; do
  cmd=(./tk4j verify agreement --path "$path" -c REALTIME -c MONOTONIC -c BOOTTIME -c TAI -c MONOTONIC_RAW -t "$seconds")
  echo "== $(date -u +%H:%M:%S) ${cmd[*]}  (chronyd steering)"
  from=$(($(wc -l <"$work/writer.log") + 1))
  set +e
  (cd "$here" && "${cmd[@]}")
  rcs[$path]=$?
  set -e
  to=$(($(wc -l <"$work/writer.log") + 1))
  echo "   exit ${rcs[$path]}"
  steering "$from" "$to"
  cc tracking | grep -E '^(Reference ID|System time|Last offset|RMS offset|Frequency|Residual freq|Skew|Update interval)' | sed 's/^/   /'
  cc sourcestats | tail -n 1 | sed 's/^/   sourcestats: /'
done

echo "== stopping chronyd and the writer"
lab_stop
echo "== result: fast exit ${rcs[fast]}, kernel exit ${rcs[kernel]}"
[ "${rcs[fast]}" -eq 0 ] && [ "${rcs[kernel]}" -eq 0 ] && exit 0
exit 1
