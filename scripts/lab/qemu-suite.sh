#!/usr/bin/env bash
# scripts/lab/qemu-suite.sh: exact mode against real stock Debian kernels under QEMU's TCG emulation, for CI.
#
# Sets everything up on a fresh machine of this kind (as root): QEMU through the host's apt, the kernels, a
# static busybox and the arm64 root through private apt configurations (/etc/apt untouched), the initrds, the
# CLI jar and core's test classes (host Maven, offline once ~/.m2 is warm), the JUnit console launcher and
# assertj, Awaitility (and its hamcrest) in target/lab-qemu/lib. Then boots every kernel (two guests at a time) and runs
# scripts/lab/qemu-checks.sh in each: `tk4j info` names the layout, `tk4j verify agreement --path fast` 0 ns,
# (x86) clocksource switches tsc -> hpet -> acpi_pm -> tsc during verify, (x86) `tk4j info` on hpet and on
# acpi_pm says each read is a system call and how to switch back to tsc, and SteeredAgreementTest,
# ClocksourceSwitchTest (x86) and LeapSecondExactTest under JUnit with -Dtimekeeping4j.test.steerHost=true,
# no JVM crash. Kernels and the layouts they must show:
#   x86-6.1     bookworm           "vdso_data (5.3-6.9)"
#   x86-6.12    trixie             "vdso_data with max_cycles (6.10-6.12)"
#   x86-7.x     trixie-backports   "vdso_clock (6.15+)"
#   arm64-6.12  trixie             "arm64 vdso_data (5.3-6.14)"
# Then the VMClock checks against the real driver (qemu-vmclock.sh: QEMU 10 with -device vmclock, the x86-7.x
# kernel, savevm + loadvm; ptp_vmclock's PHC at counter speed, PhcFastLabMain); `qemu-suite.sh vmclock` runs only
# those, and `qemu-suite.sh phc` too (the PHC at counter speed needs the same guest: its PHC is the driver's).
# Exit: 0 every check on every kernel passed; 1 a check failed, or the lab could not be set up (FAILED with the
# reason: never a silent skip). Opt out explicitly with TK4J_LAB_QEMU=off (printed, exit 0).
# Environment: TK4J_LAB_QEMU (off), TK4J_LAB_KERNELS (the list above), TK4J_LAB_JOBS (guests at a time, 2),
# TK4J_LAB_AGREE_S / TK4J_LAB_SWITCH_S (qemu-checks.sh's durations), TK4J_LAB_CACHE.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# The slowest guest (arm64: TCG translates every instruction) first, so that the two lanes end together.
kernels="${TK4J_LAB_KERNELS:-arm64-6.12 x86-6.1 x86-6.12 x86-7.x}"
only="${1:-}"
case "$only" in ""|vmclock|phc) ;; *) echo "usage: scripts/lab/qemu-suite.sh [vmclock|phc]" >&2; exit 2 ;; esac
jobs="${TK4J_LAB_JOBS:-2}"
lib="$repo/target/lab-qemu/lib"
logs="$repo/target/lab-qemu/logs"

say() { printf 'lab-qemu: %s\n' "$*"; }
setup_failed() { say "FAILED: the QEMU lab cannot be set up here: $*"; echo "0 passed, 1 failed"; exit 1; }
start=$SECONDS
took() { echo "$((SECONDS - $1)) s"; }

if [ "${TK4J_LAB_QEMU:-}" = off ]; then
  say "NOT RUN: TK4J_LAB_QEMU=off opted out of the stock-kernel lab (exact mode on x86 6.1/6.12/7.x and arm64 6.12)"
  exit 0
fi
[ "$(id -u)" = 0 ] || setup_failed "needs root (QEMU's 9p shares of /, the host's apt); run it as root"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || setup_failed "TK4J_LAB_JOBS must be a whole number >= 1, not '$jobs'"
layout_of() {
  case "$1" in
    x86-6.1) echo "x86_64 vdso_data (5.3-6.9)" ;;
    x86-6.12) echo "x86_64 vdso_data with max_cycles (6.10-6.12)" ;;
    x86-7.x) echo "x86_64 vdso_clock (6.15+)" ;;
    arm64-6.12) echo "arm64 vdso_data (5.3-6.14)" ;;
    arm64-7.x) echo "arm64 vdso_clock (6.15+)" ;;
    *) return 1 ;;
  esac
}
for k in $kernels; do layout_of "$k" >/dev/null || setup_failed "unknown kernel '$k' in TK4J_LAB_KERNELS (known: x86-6.1 x86-6.12 x86-7.x arm64-6.12 arm64-7.x)"; done

# --- set-up: the project's jars and classes, the test libraries, every kernel ---
t=$SECONDS
command -v mvn >/dev/null 2>&1 || setup_failed "no Maven (mvn) to build the CLI and the test classes"
mlog="$(mktemp)"
(cd "$repo" && mvn -B -q -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -pl cli -am package \
  && mvn -B -q -pl core test-compile \
  && mvn -B -q -pl core dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$mlog.cp" \
  && mvn -B -q dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:1.14.1 \
       -DoutputDirectory="$lib") >"$mlog" 2>&1 || { tail -n 20 "$mlog"; setup_failed "the Maven build of the CLI, core's test classes or the JUnit launcher failed (above)"; }
mkdir -p "$lib" "$logs"
for j in $(tr ':' '\n' <"$mlog.cp" | grep -E '/(assertj-core|byte-buddy|awaitility|hamcrest)-[^/]*\.jar$'); do cp "$j" "$lib/"; done
ls "$lib"/assertj-core-*.jar >/dev/null 2>&1 || setup_failed "assertj is not on core's test class path ($mlog.cp)"
rm -f "$mlog" "$mlog.cp"
say "built the CLI, core's test classes and $lib: $(took "$t")"
vmclock_checks() { # runs qemu-vmclock.sh; adds its ok/FAIL counts to passed/failed and a verdict
  local t=$SECONDS rc=0 p f
  "$here/qemu-vmclock.sh" --timeout 900 >"$logs/vmclock.log" 2>&1 || rc=$?
  echo "---------------- vmclock ($(took "$t"), exit $rc) ----------------"
  cat "$logs/vmclock.log"
  p="$(grep -c '^lab-vmclock: ok ' "$logs/vmclock.log" || true)"
  f="$(grep -c '^lab-vmclock: FAIL ' "$logs/vmclock.log" || true)"
  [ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
  passed=$((passed + p)); failed=$((failed + f))
  verdicts+=("vmclock: $p passed, $f failed (exit $rc, $(took "$t"))")
}
if [ "$only" = vmclock ] || [ "$only" = phc ]; then
  passed=0 failed=0 verdicts=()
  vmclock_checks
  echo "lab-qemu: $passed passed, $failed failed"
  [ "$failed" = 0 ]; exit
fi
for k in $kernels; do
  t=$SECONDS
  set +e
  "$here/qemu.sh" --prepare "$k" 2>&1 | sed 's/^/  /'; rc=${PIPESTATUS[0]}
  set -e
  [ "$rc" = 0 ] || setup_failed "kernel $k could not be prepared (exit $rc, reason above)"
  say "$k prepared: $(took "$t")"
done
say "set-up: $(took "$start")"

# --- the guests, $jobs at a time; each one's output printed whole when it ends ---
declare -A kernel_of=() started=()
passed=0 failed=0 verdicts=()
finish() { # kernel exit-code: collects one guest's result
  local k="$1" rc="$2" p f
  echo "---------------- $k ($(took "${started[$k]}"), exit $rc) ----------------"
  cat "$logs/$k.log"
  p="$(sed -n "s/^$k: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p" "$logs/$k.log" | tail -n 1)"
  f="$(sed -n "s/^$k: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p" "$logs/$k.log" | tail -n 1)"
  if [ -z "$p" ]; then p=0; f=1; fi                       # no summary: the guest or its checks died
  [ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
  passed=$((passed + p)); failed=$((failed + f))
  verdicts+=("$k: $p passed, $f failed (exit $rc, $(took "${started[$k]}"))")
}
reap() { # waits for one guest to end
  local done_pid rc=0
  wait -n -p done_pid || rc=$?
  finish "${kernel_of[$done_pid]}" "$rc"
  unset "kernel_of[$done_pid]"
}
for k in $kernels; do
  while [ "${#kernel_of[@]}" -ge "$jobs" ]; do reap; done
  started[$k]=$SECONDS
  TK4J_LAB_LAYOUT="$(layout_of "$k")" "$here/qemu.sh" --kernel "$k" --timeout 900 "$here/qemu-checks.sh" \
    >"$logs/$k.log" 2>&1 &
  kernel_of[$!]="$k"
done
while [ "${#kernel_of[@]}" -gt 0 ]; do reap; done
vmclock_checks

echo "================ lab-qemu summary ($(date -u +%Y-%m-%dT%H:%MZ), total $(took "$start")) ================"
for v in "${verdicts[@]}"; do echo "  $v"; done
echo "lab-qemu: $passed passed, $failed failed"
[ "$failed" = 0 ]
