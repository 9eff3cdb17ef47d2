#!/usr/bin/env bash
# scripts/lab/qemu-slow-clocksource.sh [OUTDIR]: run INSIDE an x86 guest of the QEMU lab (qemu-checks.sh calls
# it; alone: scripts/lab/qemu.sh --kernel x86-7.x scripts/lab/qemu-slow-clocksource.sh). For hpet and acpi_pm,
# the clocksources whose each clock read is a system call, it switches the guest's clocksource there and runs
# `tk4j info`, which must say so on its "slow reads" line ("slow reads    hpet: reads are syscalls: N ns (rdtsc:
# M ns)") and how to switch back to tsc (as root, and at boot), and that exact mode's refusal
# names the clocksource as its reason, and that its ticks line says MONOTONIC_RAW nanoseconds (the library's
# Diagnostics.Ticks where exact mode never served). tsc is restored after each. Prints one
# "check slow-NAME: OK|FAILED (...)" line per clocksource; exit 0 when both passed.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$repo/target/lab-qemu/${TK4J_LAB_KERNEL:-unknown}}"
cs=/sys/devices/system/clocksource/clocksource0
cd "$repo" || exit 1
export COLUMNS=200 # tk4j's lines are parsed here: a wide terminal's, unfolded (80 columns by default)
mkdir -p "$out"
failed=0
now() { local u _; read -r u _ </proc/uptime; echo "${u%.*}"; }
for s in hpet acpi_pm; do
  t=$(now)
  case " $(cat $cs/available_clocksource) " in
    *" $s "*) ;;
    *) echo "check slow-$s: FAILED (the guest offers no $s: $(cat $cs/available_clocksource))"; failed=1; continue ;;
  esac
  echo "$s" >"$cs/current_clocksource" 2>/dev/null
  if [ "$(cat $cs/current_clocksource)" != "$s" ]; then
    echo "check slow-$s: FAILED (the kernel refused the switch to $s)"; failed=1; continue
  fi
  ./tk4j info >"$out/info-$s.txt" 2>&1; rc=$?
  echo tsc >"$cs/current_clocksource" 2>/dev/null
  # The "slow reads" line and its folded continuations (they start with blanks), joined into one.
  said="$(sed -n '/^slow reads/,/^[^ s]/p' "$out/info-$s.txt" | grep -v '^[^ s]' | tr -s ' \n' '  ')"
  if [ $rc != 0 ]; then
    echo "check slow-$s: FAILED (tk4j info exit $rc: $(tail -n 2 "$out/info-$s.txt" | tr '\n' ' '))"; failed=1
  elif [[ "$said" != *"slow reads $s: reads are syscalls: "*" ns (rdtsc: "*" ns)"* ]]; then
    echo "check slow-$s: FAILED (no cost line on $s: '${said:-nothing}'; see $out/info-$s.txt)"; failed=1
  elif [[ "$said" != *"echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource"*"clocksource=tsc"* ]]; then
    echo "check slow-$s: FAILED (no way back to tsc: '$said')"; failed=1
  elif ! tr -s ' \n' '  ' <"$out/info-$s.txt" | grep -q "the kernel's clocksource is $s, which the vDSO does not read"; then
    # Started on $s, exact mode cannot recognise [vvar] (the kernel leaves its clocks stale): it must say why.
    echo "check slow-$s: FAILED (exact mode's refusal does not name $s as the reason; see $out/info-$s.txt)"; failed=1
  elif ! grep -q '^ticks  *MONOTONIC_RAW nanoseconds, read with clock_gettime(CLOCK_MONOTONIC_RAW)' "$out/info-$s.txt"; then
    # One story about the counter: where exact mode never served, ticks are MONOTONIC_RAW ns, and info says so.
    echo "check slow-$s: FAILED (the ticks line does not say MONOTONIC_RAW nanoseconds: $(grep '^ticks' \
      "$out/info-$s.txt"); see $out/info-$s.txt)"; failed=1
  else
    echo "check slow-$s: OK (${said#slow reads }; $(( $(now) - t )) s)"
  fi
done
[ "$(cat $cs/current_clocksource)" = tsc ] || { echo "check slow-restore: FAILED (the clocksource is $(cat $cs/current_clocksource), not tsc)"; failed=1; }
exit $failed
