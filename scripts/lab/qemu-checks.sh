#!/usr/bin/env bash
# scripts/lab/qemu-checks.sh: the QEMU lab's checks, run INSIDE a guest by qemu-suite.sh (through qemu.sh)
# from the repository, with the CLI jar, core's test classes and target/lab-qemu/lib (the JUnit console
# launcher, assertj) already built on the host. Each check prints one "check NAME: OK|FAILED ..." line;
# the last line is "KERNEL: N passed, N failed". Exit 0 when every check passed.
#
#   info       `tk4j info` says exact mode serves and names the layout expected ($TK4J_LAB_LAYOUT)
#   agreement  `tk4j verify agreement --path fast`: every clock OK, max excursion 0 ns, at least the check's
#              minimum of reads each (verify's own: 1,000, unless TK4J_LAB_MIN_SAMPLES lowers it, said so)
#   switch     (x86) the same verify while the clocksource goes round tsc -> hpet -> acpi_pm -> tsc under it
#   slow-hpet, slow-acpi_pm  (x86-7.x) on each, `tk4j info` says every read is a system call, with its cost
#              against rdtsc's and how to switch back to tsc (qemu-slow-clocksource.sh; 2 x tk4j info's 30-40 s)
#   junit      SteeredAgreementTest (exact mode while adjtimex steers the clock), ClocksourceSwitchTest (x86:
#              clock_mode followed through the switches), LeapSecondExactTest (23:59:50 UTC + STA_INS) and
#              ServedBoundsStepTest (the first bounded read after a set of REALTIME is DISRUPTED), with
#              -Dtimekeeping4j.test.steerHost=true: every test must run and pass (a skip fails here)
#   crash      no JVM wrote an hs_err file during the checks
# Durations (seconds): TK4J_LAB_AGREE_S (x86 15, arm64 40), TK4J_LAB_SWITCH_S (12). TCG runs the JVM 25-100x
# slower than native: at -t 6 an x86 guest's cells reached verify's minimum of 1,000 reads with little to spare
# (fewest 1,536-2,624 measured on an Intel host), so -t 15 gives them several times the minimum on a slower host
# too; an arm64 guest's did not (64-768 in a 0.5 s cell while the bracket loop is not yet compiled), so it gets
# 40 s (3.6 s a cell). A cell still short runs again with 4x the time (verify's own retries), then is INCONCLUSIVE:
# FAILED here. TK4J_LAB_MIN_SAMPLES=N (unset: verify's defaults) passes --min-samples N for a machine slower
# still; verify then prints the changed minimum on every result and the check line repeats it.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
kernel="${TK4J_LAB_KERNEL:-unknown}"
layout="${TK4J_LAB_LAYOUT:-}"
case "$(uname -m)" in aarch64) agree_s_default=40 ;; *) agree_s_default=15 ;; esac
agree_s="${TK4J_LAB_AGREE_S:-$agree_s_default}"
switch_s="${TK4J_LAB_SWITCH_S:-12}"
min_opt=() min_said=""
if [ -n "${TK4J_LAB_MIN_SAMPLES:-}" ]; then
  min_opt=(--min-samples "$TK4J_LAB_MIN_SAMPLES")
  min_said=" (minimum $TK4J_LAB_MIN_SAMPLES reads set by TK4J_LAB_MIN_SAMPLES, not verify's default)"
fi
out="$repo/target/lab-qemu/$kernel"
lib="$repo/target/lab-qemu/lib"
cd "$repo" || exit 1
export COLUMNS=200 # tk4j's lines are parsed here: a wide terminal's, unfolded (80 columns by default)
rm -rf "$out"; mkdir -p "$out"
export JAVA_TOOL_OPTIONS="-XX:ErrorFile=$out/hs_err_%p.log"
passed=0 failed=0
ok() { echo "check $1: OK ($2)"; passed=$((passed + 1)); }
bad() { echo "check $1: FAILED ($2)"; failed=$((failed + 1)); }
# Seconds of uptime (not REALTIME: the leap test sets the date), and the time since one.
now() { local u _; read -r u _ </proc/uptime; echo "${u%.*}"; }
took() { echo "$(( $(now) - $1 )) s"; }
arch="$(uname -m)"
cs=/sys/devices/system/clocksource/clocksource0

# A JDK 25 for the JUnit launcher (tk4j finds its own the same way).
jdk=""
for c in /usr/lib/jvm/*; do
  if [ -x "$c/bin/java" ] && grep -q '^JAVA_VERSION="2[5-9]' "$c/release" 2>/dev/null; then jdk="$c"; break; fi
done

# verify's JSON: every check OK, max excursion 0, each with at least its minimum of reads (verify's "minReads",
# checked here too: a verify that let a short cell pass must not pass this); prints a one-line summary.
# Plain bash and grep: the guests have neither awk (the arm64 root) nor /dev/fd (the initrd).
judge_agreement() { # json-file -> 0 when it passed
  local f="$1" n notok nonzero few=0 minr="" mins="" retried paired=0 line r="" m
  n="$(grep -c '"subject"' "$f")"
  notok="$(grep '"status"' "$f" | grep -vc '"OK"')"
  nonzero="$(grep '"excursionMaxNs"' "$f" | grep -vc ': 0,\?$')"
  retried="$(grep -c '"attempts"' "$f")"
  # Each check's "reads" comes before its "minReads": pair them in order; a minimum without reads is too few.
  while IFS= read -r line; do
    case "$line" in
      *'"reads"'*) r="${line//[!0-9]/}" ;;
      *'"minReads"'*)
        m="${line//[!0-9]/}"; paired=$((paired + 1))
        if [ -z "$r" ] || [ -z "$m" ] || [ "$r" = 0 ] || [ "$r" -lt "$m" ]; then few=$((few + 1)); fi
        if [ -n "$r" ] && { [ -z "$minr" ] || [ "$r" -lt "$minr" ]; }; then minr="$r"; fi
        case "/$mins/" in *"/$m/"*) ;; *) mins="${mins:+$mins/}$m" ;; esac
        r="" ;;
    esac
  done <"$f"
  echo "$n clocks, $notok not OK, $nonzero with an excursion above 0 ns, fewest reads ${minr:-none} (minimum ${mins:-none}), $retried cell(s) retried"
  [ "$n" -gt 0 ] && [ "$notok" = 0 ] && [ "$nonzero" = 0 ] && [ "$few" = 0 ] && [ "$paired" = "$n" ]
}

echo "lab-qemu $kernel: $(uname -r) $arch, clocksource $(cat $cs/current_clocksource) (available: $(cat $cs/available_clocksource))"

# --- info ---
t=$(now)
./tk4j info >"$out/info.txt" 2>&1; rc=$?
fast="$(grep '^fast clocks' "$out/info.txt")"; data="$(grep '^kernel data' "$out/info.txt")"
echo "  $fast"; echo "  $data"
if [ $rc != 0 ]; then bad info "tk4j info exit $rc, $(took "$t"); $(tail -n 3 "$out/info.txt" | tr '\n' ' ')"
elif [[ "$fast" != *"exact: the kernel's vDSO data"* ]]; then bad info "exact mode does not serve: $fast"
elif [ -n "$layout" ] && [[ "$data" != *"$layout"* ]]; then bad info "layout is not '$layout': $data"
else ok info "layout '${layout:-any}', exact mode, $(took "$t")"; fi

# --- agreement ---
# A cell under its minimum (a JIT or GC pause can eat a short cell under emulation) is measured again by
# verify itself, with 4x the time, up to 3 attempts; one still short is INCONCLUSIVE (exit 3): FAILED here.
t=$(now)
./tk4j verify agreement --path fast -t "$agree_s" "${min_opt[@]}" --json >"$out/agreement.json" \
  2>"$out/agreement.err"; rc=$?
summary="$(judge_agreement "$out/agreement.json")"; judged=$?
if [ $rc = 0 ] && [ $judged = 0 ]; then ok agreement "$summary; -t $agree_s$min_said, $(took "$t")"
else bad agreement "exit $rc; $summary; -t $agree_s$min_said; $(tail -n 2 "$out/agreement.err" | tr '\n' ' ')"; fi

# --- clocksource switches during verify (x86) ---
# verify's output is only seen when it ends, so the measuring cannot be waited for: the clocksource instead
# goes round tsc -> hpet -> acpi_pm -> tsc, one switch a second, for the JVM's whole life, and its
# $switch_s s of measuring cells therefore hold about that many switches.
if [ "$arch" = x86_64 ]; then
  t=$(now)
  ./tk4j verify agreement --path fast -t "$switch_s" "${min_opt[@]}" --json >"$out/switch.json" 2>"$out/switch.err" &
  vpid=$!
  cycle=(hpet acpi_pm tsc) n=0 wrong=""
  while kill -0 "$vpid" 2>/dev/null; do
    s="${cycle[$((n % 3))]}"
    echo "$s" >"$cs/current_clocksource" 2>/dev/null
    [ "$(cat $cs/current_clocksource)" = "$s" ] || wrong="$wrong $s"
    n=$((n + 1))
    sleep 1
  done
  echo tsc >"$cs/current_clocksource" 2>/dev/null
  wait "$vpid"; rc=$?
  summary="$(judge_agreement "$out/switch.json")"; judged=$?
  if [ -n "$wrong" ]; then bad switch "the kernel refused the switch to:$wrong"
  elif [ "$n" -lt "$switch_s" ]; then bad switch "only $n switches while verify ran (fewer than its $switch_s s)"
  elif [ $rc = 0 ] && [ $judged = 0 ]; then
    ok switch "$n switches (tsc -> hpet -> acpi_pm -> tsc, 1 s apart) during verify: $summary; -t $switch_s$min_said, $(took "$t")"
  else bad switch "exit $rc; $summary; $(tail -n 2 "$out/switch.err" | tr '\n' ' ')"; fi
  [ "$(cat $cs/current_clocksource)" = tsc ] || bad switch "the clocksource did not go back to tsc"
fi

# --- slow clocksources said (x86): tk4j info on hpet and on acpi_pm names the cost and the way back to tsc ---
# On one kernel (TK4J_LAB_SLOW_KERNEL, default x86-7.x): the line does not depend on the kernel, and each costs
# two tk4j info runs of 30-40 s under TCG.
if [ "$arch" = x86_64 ] && [ "$kernel" = "${TK4J_LAB_SLOW_KERNEL:-x86-7.x}" ]; then
  "$repo/scripts/lab/qemu-slow-clocksource.sh" "$out" >"$out/slow.txt" 2>&1
  while IFS= read -r line; do
    echo "$line"
    case "$line" in
      "check "*": OK "*) passed=$((passed + 1)) ;;
      "check "*": FAILED "*) failed=$((failed + 1)) ;;
    esac
  done <"$out/slow.txt"
  grep -q '^check slow-hpet: ' "$out/slow.txt" || bad slow "qemu-slow-clocksource.sh said nothing: $(tail -n 2 "$out/slow.txt" | tr '\n' ' ')"
fi

# --- JUnit in the guest: tests that change the clock state ---
t=$(now)
classes=(org.timekeeping4j.vdso.SteeredAgreementTest)
[ "$arch" = x86_64 ] && classes+=(org.timekeeping4j.vdso.ClocksourceSwitchTest)
classes+=(org.timekeeping4j.vdso.LeapSecondExactTest org.timekeeping4j.device.ServedBoundsStepTest)
expected=${#classes[@]}
launcher="$(ls "$lib"/junit-platform-console-standalone-*.jar 2>/dev/null | head -n 1)"
if [ -z "$jdk" ] || [ -z "$launcher" ]; then
  bad junit "no JDK 25 in /usr/lib/jvm (${jdk:-none}) or no console launcher in $lib (${launcher:-none})"
else
  cp="$repo/core/target/classes:$repo/core/target/test-classes:$(ls "$lib"/*.jar | grep -v console-standalone | paste -sd:)"
  sel=(); for c in "${classes[@]}"; do sel+=(--select-class "$c"); done
  # SerialGC (as tk4j runs): fewer threads competing for the guest's two emulated CPUs than ParallelGC's.
  "$jdk/bin/java" --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Dtimekeeping4j.test.steerHost=true \
    -jar "$launcher" execute --disable-banner --disable-ansi-colors --details=tree -cp "$cp" "${sel[@]}" \
    >"$out/junit.txt" 2>&1; rc=$?
  grep -E '(LeapSecondExactTest|ClocksourceSwitchTest): ' "$out/junit.txt" | sed 's/^/  /'
  succeeded="$(sed -n 's/^\[ *\([0-9]*\) tests successful.*/\1/p' "$out/junit.txt")"
  if [ $rc = 0 ] && [ "${succeeded:-0}" = "$expected" ]; then
    ok junit "${succeeded} of $expected tests passed (${classes[*]##*.}), $(took "$t")"
  else
    bad junit "exit $rc, ${succeeded:-0} of $expected tests successful; log $out/junit.txt"
    grep -E 'Assumption failed|Expect|Caused by|AssertionError|✘' "$out/junit.txt" | head -n 20 | sed 's/^/    /'
  fi
fi

# --- no JVM crash ---
crashes="$(ls "$out"/hs_err_*.log 2>/dev/null)"
if [ -z "$crashes" ]; then ok crash "no hs_err file from any JVM"
else bad crash "JVM crash: $(echo $crashes); $(grep -m1 -E '^# (SIG|Problematic|J |C )' $crashes | head -n 2 | tr '\n' ' ')"; fi

echo "$kernel: $passed passed, $failed failed"
[ "$failed" = 0 ]
