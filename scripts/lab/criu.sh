#!/usr/bin/env bash
# scripts/lab/criu.sh: checkpoint/restore with CRIU, for real, for CI (as root, x86_64 or arm64 Debian).
#
# Sets up CRIU 4.x (scripts/lab/criu-fetch.sh: sid's criu and its dependency closure in a private root, cached
# under $TK4J_LAB_CACHE/criu; /etc/apt untouched), builds core's jar (Maven), then starts a JVM running
# scripts/lab/criu/CriuLoop.java (setsid, stdin /dev/null, no inherited descriptors, -XX:-UsePerfData, output
# appended to a file) and drives it through three checkpoints, each followed by a restore:
#   restore 1 and 2 as dumped (CRIU restores into a new time namespace whose offsets continue MONOTONIC and
#   BOOTTIME from the dump), restore 3 with the checkpoint's timens-N.img moved forward, MONOTONIC by
#   TK4J_CRIU_SHIFT_MONO_S (3600) and BOOTTIME by TK4J_CRIU_SHIFT_BOOT_S (7200) seconds (scripts/lab/criu/timens.py).
# The JVM's rounds are split by time namespace into segments (0: before the first checkpoint, N: after restore N),
# TK4J_CRIU_ROUNDS (10) rounds each; a namespace is named by its inode and its offsets (the kernel reuses the
# inode of a namespace that is gone: restore 2 gets restore 1's). Asserted, each printed as `lab-criu: ok|FAIL`:
#   - 0 reads of Clocks.nanos outside the kernel's bracket, every counter-backed clock, over the whole run;
#   - MONOTONIC and BOOTTIME never backwards within the process (across the restores too);
#   - each restore: a new time namespace; /proc/PID/timens_offsets equal to the checkpoint's clocks minus this
#     host's at the restore (bracketed by reads before and after `criu restore`), so restore 3's offsets are the
#     known shift off; restore 3's first round reads MONOTONIC and BOOTTIME at least the shift further on;
#   - each segment's last 5 rounds (1 s or more after the restore): exact mode serving (the library's diagnostics
#     say so) and Clocks.nanos(MONOTONIC) cheaper than System.nanoTime: the median of the rounds' ratios (each the
#     median of 10 back-to-back block pairs in one round) below TK4J_CRIU_MAX_RATIO (1.0, the library's promise:
#     never slower than the JDK; exact mode measures about 0.87 on the Intel hosts of this machine kind and
#     0.93-0.98 on the AMD ones, from one run to the next after a restore; clock_gettime behind Clocks.nanos about
#     1.0-1.04, at that line: the diagnostics' check above tells the modes apart);
#   - each segment after a restore, its last round: the EventRecorder export works, holds events recorded before
#     the checkpoint, every one of them extrapolated and none later than a MONOTONIC read after the export;
#   - the bounded clock (BoundedClock.system(), any source): before the first checkpoint, no read DISRUPTED;
#     after each restore, its first read DISRUPTED (the library promises so for 1 s after it sees the restore, so
#     a first read within 1 s of `criu restore`'s start is judged; a later one fails as unjudgeable), and a read
#     not DISRUPTED within TK4J_CRIU_SERVED_S (5) s of it (the source sampled again: the refresher sees the restore
#     at its next wake, at most its source's period (1 s or less) later, serves nothing for 1 s, then samples at its
#     next wake; the segment runs until then, however fast its rounds went);
#   - the JVM ends on its own when asked (no crash, no hs_err file).
# Last line: `lab-criu: N passed, N failed`; the JVM's output, CRIU's logs in target/lab-criu/.
# Exit: 0 every check passed; 1 a check failed; 2 the lab cannot be set up here (the reason printed: never a
# silent skip). Opt out explicitly with TK4J_LAB_CRIU=off (printed, exit 0).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work="$repo/target/lab-criu"
rounds="${TK4J_CRIU_ROUNDS:-10}"
judged=5 # the last rounds of a segment that are judged
shift_mono="${TK4J_CRIU_SHIFT_MONO_S:-3600}"
shift_boot="${TK4J_CRIU_SHIFT_BOOT_S:-7200}"
max_ratio="${TK4J_CRIU_MAX_RATIO:-1.0}"
served_s="${TK4J_CRIU_SERVED_S:-5}"
restores=3
timens=(python3 "$here/criu/timens.py")

say() { printf 'lab-criu: %s\n' "$*"; }
setup_failed() { say "FAILED: the CRIU lab cannot be set up here: $*"; exit 2; }
passed=0; failed=0
ok() { passed=$((passed + 1)); say "ok   $*"; }
bad() { failed=$((failed + 1)); say "FAIL $*"; }
start=$SECONDS

if [ "${TK4J_LAB_CRIU:-}" = off ]; then
  say "NOT RUN: TK4J_LAB_CRIU=off opted out of the checkpoint/restore lab (CRIU dump and restore of a JVM)"
  exit 0
fi
[ "$(id -u)" = 0 ] || setup_failed "needs root (criu dump and restore); run it as root"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] && [ "$rounds" -ge $((judged + 2)) ] \
  || setup_failed "TK4J_CRIU_ROUNDS must be a whole number >= $((judged + 2)), not '$rounds'"
[[ "$served_s" =~ ^[1-9][0-9]*$ ]] || setup_failed "TK4J_CRIU_SERVED_S must be a whole number of seconds, not '$served_s'"
[[ "$shift_mono$shift_boot" =~ ^[0-9]+$ ]] && [ "$shift_mono" -gt 0 ] && [ "$shift_boot" -gt 0 ] \
  || setup_failed "TK4J_CRIU_SHIFT_MONO_S and TK4J_CRIU_SHIFT_BOOT_S must be whole numbers > 0"
command -v python3 >/dev/null 2>&1 || setup_failed "no python3 (timens.py edits the checkpoint's timens image)"
[ -e /proc/self/ns/time ] || setup_failed "this kernel has no time namespaces (/proc/self/ns/time): CRIU restores into one"

# --- set-up: CRIU, the JDK, core's jar ---
t=$SECONDS
rm -rf "$work"; mkdir -p "$work"
criu="$("$here/criu-fetch.sh" 2>"$work/fetch.err")" || setup_failed "$(cat "$work/fetch.err")"
check_out="$("$criu" check 2>&1)" || setup_failed "\`criu check\` fails: $(echo "$check_out" | grep -v '^Warn' | tail -n 3)"
say "CRIU: $("$criu" --version | head -n 1) ($criu), criu check: $(echo "$check_out" | tail -n 1) ($((SECONDS - t)) s)"
jdk="$("$repo/scripts/java25" --home 2>&1)" || setup_failed "$jdk"
java="$jdk/bin/java"
command -v mvn >/dev/null 2>&1 || setup_failed "no Maven (mvn) to build core's jar"
t=$SECONDS
mlog="$work/mvn.log"
(cd "$repo" && mvn -B -q -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -pl core -am package) \
  >"$mlog" 2>&1 || { tail -n 20 "$mlog"; setup_failed "the Maven build of core's jar failed (above)"; }
jar="$(ls "$repo"/core/target/timekeeping4j-core-*.jar 2>/dev/null | grep -Ev -- '-(tests|sources|javadoc)\.jar$' | head -n 1)"
[ -n "$jar" ] || setup_failed "no core jar in core/target after the build"
say "built $jar ($((SECONDS - t)) s)"

# --- the JVM ---
out="$work/loop.out"
pid=""
cleanup() { # ends the JVM this script started or restored, by its id, if it is still running
  if [ -n "$pid" ] && [ -d "/proc/$pid" ] && grep -q 'CriuLoop' "/proc/$pid/cmdline" 2>/dev/null; then
    touch "$work/stop"; sleep 1; [ -d "/proc/$pid" ] && kill -9 "$pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT
# Its own session, stdin /dev/null, stdout and stderr appended to a file (O_APPEND: every restored incarnation
# writes at the end), every other inherited descriptor closed: CRIU refuses to dump a pipe it cannot restore.
(
  for fd in /proc/$BASHPID/fd/*; do
    n="${fd##*/}"
    if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi
  done
  cd "$work"
  exec setsid "$java" --enable-native-access=ALL-UNNAMED -XX:-UsePerfData -XX:+UseSerialGC -Xmx64m \
    -XX:ErrorFile="$work/hs_err_pid%p.log" -cp "$jar" "$here/criu/CriuLoop.java" "$work/stop"
) </dev/null >>"$out" 2>&1 &
child=$!
disown "$child" # still reaped by this shell when the dump kills it, without a "Killed" job notice

alive() { [ -d "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
gone() { # waits until /proc/$1 is gone (a dumped process is killed; its PID must be free for the restore)
  local i
  for ((i = 0; i < 300; i++)); do
    [ -d "/proc/$1" ] || return 0
    sleep 0.1
  done
  return 1
}
ns_id() { # the time namespace of process $1 as CriuLoop names it: INODE/MONO_NS/BOOT_NS
  local id c sec nsec
  id="$(readlink "/proc/$1/ns/time" | sed 's/.*\[\([0-9]*\)\].*/\1/')"
  for c in monotonic boottime; do
    read -r sec nsec < <(awk -v c=$c '$1 == c {print $2, $3}' "/proc/$1/timens_offsets")
    id="$id/$((sec * 1000000000 + nsec))"
  done
  echo "$id"
}
round_lines() { # round_lines NS: the JVM's round lines in time namespace NS
  grep -E "^criu-loop: round=[0-9]+ ns=$1 " "$out" || true
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; } # field NAME < lines: NAME's value, one per line
wait_rounds() { # wait_rounds NS N: until N rounds in namespace NS are out (the JVM alive), else 1
  local i
  for ((i = 0; i < 1200; i++)); do
    [ "$(round_lines "$1" | wc -l)" -ge "$2" ] && return 0
    alive "$pid" || return 1
    sleep 0.1
  done
  return 1
}
wait_served() { # wait_served NS SINCE: until NS's last round's bounded read is not DISRUPTED (0), or SINCE + served_s (1)
  while [ $(($(date +%s%N) - $2)) -lt $((served_s * 1000000000)) ] && alive "$pid"; do
    [ "$(round_lines "$1" | tail -n 1 | field bounds_last)" != DISRUPTED ] && return 0
    sleep 0.1
  done
  return 1
}
fail_run() { # the run cannot go on: what the JVM printed last, then the verdict
  bad "$*"
  echo "---- the JVM's last lines ($out):"; tail -n 15 "$out" | cut -c1-400
  say "$passed passed, $failed failed ($((SECONDS - start)) s)"
  exit 1
}

for ((i = 0; i < 300; i++)); do
  pid="$(sed -n 's/^criu-loop: start pid=\([0-9]*\) .*/\1/p' "$out" | head -n 1)"
  [ -n "$pid" ] && break
  kill -0 "$child" 2>/dev/null || break
  sleep 0.1
done
[ -n "$pid" ] || { cat "$out"; setup_failed "the JVM did not start (its output above)"; }
ns[0]="$(sed -n 's/^criu-loop: start pid=[0-9]* ns=\([^ ]*\) .*/\1/p' "$out" | head -n 1)"
[ "${ns[0]}" = "$(ns_id "$pid")" ] || setup_failed "the JVM names its time namespace ${ns[0]}, this script $(ns_id "$pid")"
say "JVM $pid started ($(sed -n 's/^criu-loop: start .*\(java=[^ ]*\).*/\1/p' "$out")), time namespace ${ns[0]}"
wait_rounds "${ns[0]}" "$rounds" || fail_run "the JVM did not run $rounds rounds before the first checkpoint"

for ((n = 1; n <= restores; n++)); do
  img="$work/img-$n"; mkdir -p "$img"
  last="$(round_lines "${ns[n - 1]}" | tail -n 1)"
  t=$SECONDS
  "$criu" dump -t "$pid" -D "$img" --shell-job -v4 -o dump.log \
    || fail_run "criu dump $n of JVM $pid failed: $(grep -E 'Error|error' "$img/dump.log" | tail -n 3)"
  gone "$pid" || fail_run "JVM $pid still exists 30 s after checkpoint $n ($(grep State "/proc/$pid/status" 2>/dev/null))"
  dump_s=$((SECONDS - t))
  tim="$(ls "$img"/timens-*.img 2>/dev/null | head -n 1)"
  [ -n "$tim" ] || fail_run "checkpoint $n has no timens-*.img (CRIU did not dump the time namespace)"
  read -r img_mono img_boot < <("${timens[@]}" show "$tim") || fail_run "cannot read $tim"
  what="as dumped"
  if [ "$n" = "$restores" ]; then
    read -r img_mono img_boot < <("${timens[@]}" shift "$tim" "$shift_mono" "$shift_boot") \
      || fail_run "cannot shift $tim"
    what="with MONOTONIC +$shift_mono s and BOOTTIME +$shift_boot s in $(basename "$tim")"
  fi
  t=$SECONDS
  read -r before_mono before_boot < <("${timens[@]}" now)
  restore_real[n]="$(date +%s%N)" # REALTIME is not namespaced: the JVM's reads compare with it
  "$criu" restore -D "$img" --shell-job -d -v4 -o restore.log \
    || fail_run "criu restore $n failed: $(grep -E 'Error|error' "$img/restore.log" | tail -n 3)"
  read -r after_mono after_boot < <("${timens[@]}" now)
  restore_s=$((SECONDS - t))
  [ -d "/proc/$pid" ] || fail_run "criu restore $n returned, but no process $pid"
  ns[n]="$(ns_id "$pid")"
  offsets="$(cat "/proc/$pid/timens_offsets")"
  say "checkpoint $n: dump $dump_s s, restore $restore_s s ($what), time namespace ${ns[n]}, offsets:" \
      $offsets
  # New namespace, offsets = the checkpoint's clocks - this host's at the restore (CRIU's continuation).
  fresh=1
  for ((k = 0; k < n; k++)); do [ "${ns[k]}" != "${ns[n]}" ] || fresh=0; done
  if [ "$fresh" = 1 ]; then ok "restore $n: a new time namespace (${ns[n]})"
  else bad "restore $n: time namespace ${ns[n]} is not new (earlier: ${ns[*]:0:n})"; fi
  for c in monotonic boottime; do
    read -r sec nsec < <(awk -v c=$c '$1 == c {print $2, $3}' <<<"$offsets")
    off=$((sec * 1000000000 + nsec))
    if [ $c = monotonic ]; then lo=$((img_mono - after_mono)); hi=$((img_mono - before_mono))
    else lo=$((img_boot - after_boot)); hi=$((img_boot - before_boot)); fi
    if [ "$off" -ge "$lo" ] && [ "$off" -le "$hi" ]; then
      ok "restore $n: $c offset $off ns = checkpoint - host at restore, in [$lo, $hi]"
    else
      bad "restore $n: $c offset $off ns outside [$lo, $hi] (the checkpoint's clock - the host's around the restore)"
    fi
  done
  wait_rounds "${ns[n]}" "$rounds" \
    || fail_run "the JVM did not run $rounds rounds after restore $n (alive: $([ -d "/proc/$pid" ] && echo yes || echo no))"
  served_in_time[n]=no
  if wait_served "${ns[n]}" "${restore_real[n]}"; then served_in_time[n]=yes; fi
  if [ "$n" = "$restores" ]; then # the shift, seen from inside: first round after the restore vs last before
    first="$(round_lines "${ns[n]}" | head -n 1)"
    for c in mono:$shift_mono boot:$shift_boot; do
      f="${c%%:*}"; s="${c##*:}"
      a="$(field "$f" <<<"$last")"; b="$(field "$f" <<<"$first")"
      if [ $((b - a)) -ge $((s * 1000000000)) ]; then
        ok "restore $n: the JVM's $f moved on by $((b - a)) ns >= the shift of $s s"
      else
        bad "restore $n: the JVM's $f moved on by $((b - a)) ns, less than the shift of $s s (last round before: $a, first after: $b)"
      fi
    done
  fi
  rm -f "$img"/pages-*.img # the restore is done: the memory images (about 100 MB) are not needed any more
done

# --- the end: stop the JVM, judge every segment ---
touch "$work/stop"
gone "$pid" || fail_run "the JVM ($pid) did not end within 30 s of being asked"
pid=""
end="$(grep '^criu-loop: end ' "$out" | tail -n 1)"
[ -n "$end" ] || fail_run "the JVM ended without its end line (crashed?)"
hs="$(ls "$work"/hs_err_pid*.log 2>/dev/null || true)"
if [ -z "$hs" ] && ! grep -q 'A fatal error has been detected' "$out"; then ok "no JVM crash (no hs_err file)"
else bad "the JVM crashed: ${hs:-see $out}"; fi

reads="$(field total_reads <<<"$end")"; outside="$(field total_outside <<<"$end")"
if [ "$outside" = 0 ] && [ "$reads" -gt 0 ]; then
  ok "0 of $reads Clocks.nanos reads (REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI) outside the kernel's bracket"
else
  bad "$outside of $reads Clocks.nanos reads outside the kernel's bracket: $(grep -m 3 'OUTSIDE' "$out" | tr '\n' ';')"
fi
for c in mono:MONOTONIC boot:BOOTTIME; do
  back="$(field "${c%%:*}_back" <<<"$end")"
  if [ "$back" = 0 ]; then ok "${c##*:} never backwards within the process, across $restores restores"
  else bad "${c##*:} went backwards $back times: $(grep -m 3 "${c##*:} BACKWARDS" "$out" | tr '\n' ';')"; fi
done

for ((n = 0; n <= restores; n++)); do
  seg="$(round_lines "${ns[n]}")"
  name="before the first checkpoint"; [ "$n" = 0 ] || name="after restore $n"
  tailn="$(tail -n $judged <<<"$seg")"
  serving="$(field serving <<<"$tailn" | tr '\n' ' ')"
  ratios="$(field ratio <<<"$tailn" | tr '\n' ' ')"
  median="$(field ratio <<<"$tailn" | sort -g | sed -n "$(((judged + 1) / 2))p")"
  costs="fast $(field fast_ns <<<"$tailn" | tr '\n' ' ')ns, nanoTime $(field nanotime_ns <<<"$tailn" | tr '\n' ' ')ns"
  if [ "$(field serving <<<"$tailn" | grep -cx exact)" = $judged ]; then
    ok "$name: exact mode serves in the last $judged rounds (diagnostics: $serving)"
  else
    bad "$name: exact mode does not serve in the last $judged rounds (diagnostics: $serving; $(grep 'serving MONOTONIC' "$out" | tail -n 1 | cut -c1-300))"
  fi
  if awk -v m="$median" -v x="$max_ratio" 'BEGIN {exit !(m < x)}'; then
    ok "$name: Clocks.nanos(MONOTONIC) cheaper than System.nanoTime, median ratio $median < $max_ratio (ratios $ratios; $costs)"
  else
    bad "$name: Clocks.nanos(MONOTONIC) not cheaper than System.nanoTime, median ratio $median >= $max_ratio (ratios $ratios; $costs)"
  fi
  lastr="$(tail -n 1 <<<"$seg")"
  b_first="$(field bounds_first <<<"$lastr")"; b_first_real="$(field bounds_first_real <<<"$lastr")"
  b_dis="$(field bounds_disrupted <<<"$lastr")"; b_reads="$(field bounds_reads <<<"$lastr")"
  b_last="$(field bounds_last <<<"$lastr")"
  b_say="$b_reads bounded reads, $b_dis DISRUPTED, first $b_first, last $b_last"
  if [ "$n" = 0 ]; then
    if [ "${b_reads:-0}" -gt 0 ] && [ "$b_dis" = 0 ]; then ok "$name: the bounded clock never DISRUPTED ($b_say)"
    else bad "$name: the bounded clock without a disruption: $b_say"; fi
    continue
  fi
  late=$((b_first_real - restore_real[n]))
  if [ "${b_reads:-0}" -eq 0 ] || [ "$late" -ge 1000000000 ]; then
    bad "$name: no bounded read within 1 s of the restore to judge ($b_say; the first $late ns after it)"
  elif [ "$b_first" = DISRUPTED ] && [ "$b_last" != DISRUPTED ] && [ "${served_in_time[n]}" = yes ]; then
    ok "$name: the bounded clock's first read DISRUPTED ($late ns after the restore began), its last $b_last ($b_say)"
  else
    bad "$name: the bounded clock after the restore: $b_say (first read $late ns after it began; served within $served_s s: ${served_in_time[n]}; want DISRUPTED first, then served)"
  fi
  exp="$(field export <<<"$lastr")"; pre="$(field pre <<<"$lastr")"
  pre_exact="$(field pre_exact <<<"$lastr")"; pre_later="$(field pre_later <<<"$lastr")"
  if [ "$exp" = ok ] && [ "$pre" -gt 0 ] && [ "$pre_exact" = 0 ] && [ "$pre_later" = 0 ]; then
    ok "$name: the $pre events recorded before the checkpoint exported extrapolated, none after now"
  elif [ "$exp" != ok ]; then
    bad "$name: the events' export failed: $(grep 'export failed' "$out" | tail -n 1 | cut -c1-400)"
  else
    bad "$name: events recorded before the checkpoint: $pre exported, $pre_exact of them not extrapolated, $pre_later rounds with one later than now"
  fi
done
say "$passed passed, $failed failed ($((SECONDS - start)) s; the JVM's output: $out)"
[ "$failed" = 0 ]
