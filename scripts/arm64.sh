#!/usr/bin/env bash
# scripts/arm64.sh: the core tests, `tk4j info` and `tk4j verify all` on an aarch64 JVM.
#
# On an x86_64 Debian machine (root, apt reachable) the JVM is emulated: qemu-user-static through binfmt_misc
# runs an arm64 Debian trixie root holding openjdk-25-jre-headless, unpacked once from Debian's packages by
# scripts/lab/qemu-arm64-root.sh (private apt configuration, no maintainer scripts: about 15 s cold, where
# mmdebstrap under emulation took 5 to 13 minutes) and cached in ~/.cache/timekeeping4j/lab/qemu/arm64-root
# (the QEMU lab's arm64 guests boot the same root). The project is built by the host's Maven and JDK (pure
# Java); surefire forks the test JVM through a wrapper (its -Djvm=, in $TK4J_ARM64_CACHE, default
# ~/.cache/timekeeping4j/arm64) that enters the root in a private mount namespace (the project, ~/.m2, /tmp,
# /proc, /sys and /dev bound in) and runs the arm64 java there. On an aarch64 host nothing is emulated: the
# same runs use the host's JDK.
#
# Exit status: 0 when everything ran and passed; 1 when a build, a test or a tk4j run fails on aarch64, and
# also when the emulation cannot be set up here (not root, apt failing, no binfmt_misc, the root not
# buildable): it then prints "FAILED: aarch64 runs cannot be set up: <reason>", so a CI that runs it cannot
# pass with the aarch64 run silently missing. Opting out is explicit: TK4J_ARM64=off prints that it was used
# and exits 0.
# verify holds every check to its own minimum sample count (1,000 reads or checks a cell; a short cell runs
# again with 4x the time, then is INCONCLUSIVE: exit 3, a failure here). Under qemu-user the JVM runs 25-100x
# slower than native: at --duration 2 (the host's default, 10 ms cells) a third of the 128 cells needed a
# second or third attempt, at 8 s one in sixteen. So verify runs 12 s here, with the defaults.
# Environment: TK4J_ARM64 (off: opt out, said so), TK4J_ARM64_CACHE (the wrapper's folder),
# TK4J_ARM64_VERIFY_SECONDS (12), TK4J_ARM64_MIN_SAMPLES (unset: verify's defaults; N passes --min-samples N,
# for a machine slower still: verify then prints the changed minimum on every result, and this script says it
# was used), TK4J_ARM64_MODULES ("core,simulation": the library and the counter selection's arm64 stubs; "all" runs every module's tests: 13 min instead of 5 on the 2-core VM;
# "none" runs no module's tests, said so: only tk4j info and verify).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${TK4J_ARM64_CACHE:-$HOME/.cache/timekeeping4j/arm64}"
verify_seconds="${TK4J_ARM64_VERIFY_SECONDS:-12}"
min_samples="${TK4J_ARM64_MIN_SAMPLES:-}"
modules="${TK4J_ARM64_MODULES:-core,simulation}"
# Tests whose verdict cannot depend on the architecture (they read class files and sources, or run pure-Java
# arithmetic over a simulated counter): step 1 runs them natively; emulated they cost minutes (PackageOrderTest 130 s,
# ArchitectureDocTest 52 s). TK4J_ARM64_NATIVE_ONLY="" runs them here too.
native_only="${TK4J_ARM64_NATIVE_ONLY-PackageOrderTest,ArchitectureDocTest,ExportedApiTest,TimekeeperAdjustmentTest,TimekeeperExactnessTest,SkewConsistencyTest,SimulatedCounterTest}"
root=""                               # set by build_root
jdk="$cache/jdk"                      # bin/java: the wrapper; release: the arm64 JDK's (read by surefire, tk4j)
arm_java=/usr/lib/jvm/java-25-openjdk-arm64
packages="qemu-user-static binfmt-support"

log() { printf 'arm64: %s\n' "$*" >&2; }
# A setup that cannot be made is a failure with its reason, never a silent pass.
setup_failed() { echo "FAILED: aarch64 runs cannot be set up: $*" >&2; echo "aarch64: FAILED (setup: $*)"; exit 1; }
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

# One line per test that did not apply on aarch64, with its reason (JUnit assumption messages).
skipped_report() {
  local d f m dirs=()
  for m in ${modules//,/ }; do dirs+=("$here/$m"); done
  [ "$modules" = all ] && dirs=("$here"/* "$here"/adapters/*)
  for d in "${dirs[@]}"; do for f in "$d"/target/surefire-reports/TEST-*.xml; do
    [ -f "$f" ] || continue
    awk '
      /<testcase / { name = $0; sub(/.*<testcase name="/, "", name); sub(/".*/, "", name)
                     cls = $0; sub(/.*classname="/, "", cls); sub(/".*/, "", cls); sub(/.*\./, "", cls) }
      /<skipped/   { why = $0; if (why ~ /Assumption failed: /) sub(/.*Assumption failed: /, "", why); else why = "(no reason given)"
                     sub(/\]\]>.*/, "", why); print "  skipped on aarch64: " cls "." name ": " why }
    ' "$f"
  done; done
}

setup_emulation() {
  [ "$(id -u)" = 0 ] || setup_failed "needs root (apt-get, binfmt_misc, chroot); run it as root"
  local missing="" p
  for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    log "installing$missing"
    apt-get update -qq -o DPkg::Lock::Timeout=600 >/dev/null 2>&1 || setup_failed "apt-get update failed (no package mirror reachable)"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 $missing >/dev/null 2>&1 \
      || setup_failed "apt-get install$missing failed"
  fi
  if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    # No systemd as PID 1 here, so nothing mounted it.
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null \
      || setup_failed "binfmt_misc cannot be mounted (a container without it?)"
  fi
  if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || setup_failed "update-binfmts --enable qemu-aarch64 failed"
  fi
  grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null \
    || setup_failed "binfmt_misc has no enabled qemu-aarch64 entry"
  # The F flag (interpreter opened at registration) is what lets the chrooted root use the host's qemu.
  grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 \
    || setup_failed "the qemu-aarch64 binfmt entry lacks the F flag, so it cannot run inside a chroot"

  build_root
}

# The arm64 root with openjdk-25: unpacked from Debian's packages, no maintainer scripts run (the QEMU lab's
# arm64 guests boot the same one).
build_root() {
  local t0
  t0=$(now)
  root="$("$here/scripts/lab/qemu-arm64-root.sh")" || setup_failed "the arm64 root could not be built (scripts/lab/qemu-arm64-root.sh, reason above)"
  [ -x "$root$arm_java/bin/java" ] || setup_failed "the arm64 root $root has no $arm_java/bin/java"
  log "arm64 root: $root ($(took "$t0"))"
}

# The -Djvm= wrapper surefire and tk4j run: the arm64 java inside the root.
make_wrapper() {
  mkdir -p "$jdk/bin"
  cp "$root$arm_java/release" "$jdk/release"
  # The wrapper: re-executes itself in a private mount namespace (the binds vanish with it), binds what a
  # forked JVM reads by host path, and runs the arm64 java in the root from the caller's directory.
  cat >"$jdk/bin/java" <<EOF
#!/usr/bin/env bash
# Generated by scripts/arm64.sh: java inside the arm64 root at $root.
set -euo pipefail
if [ -z "\${TK4J_ARM64_NS:-}" ]; then
  exec env TK4J_ARM64_NS=1 unshare --mount --propagation private "\$0" "\$@"
fi
for d in /proc /sys /dev /tmp "$here" "\$HOME/.m2" \${TK4J_ARM64_BINDS:-}; do
  [ -d "\$d" ] || continue
  mkdir -p "$root\$d"
  mount --rbind "\$d" "$root\$d"
done
exec chroot "$root" /usr/bin/env -C "\$PWD" $arm_java/bin/java "\$@"
EOF
  chmod +x "$jdk/bin/java"
  local out
  out="$("$jdk/bin/java" -XshowSettings:properties -version 2>&1 | grep 'os.arch' || true)"
  case "$out" in
    *aarch64*) ;;
    *) setup_failed "the wrapper's JVM does not start as aarch64 (got: ${out:-nothing})" ;;
  esac
}

if [ "${TK4J_ARM64:-}" = off ]; then
  echo "aarch64: NOT RUN: TK4J_ARM64=off opted out of the aarch64 runs"
  exit 0
fi
[ $# = 0 ] || { echo "usage: scripts/arm64.sh (no arguments; see its header)" >&2; exit 2; }

t_all=$(now)
case "$(uname -m)" in
  aarch64)
    log "aarch64 host: running natively"
    java_home=""          # maven-toolchains-plugin and ./tk4j find the host's JDK 25
    ;;
  x86_64)
    t0=$(now)
    setup_emulation
    make_wrapper
    log "setup: $(took "$t0")"
    java_home="$jdk"
    ;;
  *) setup_failed "host architecture $(uname -m) is neither x86_64 nor aarch64" ;;
esac

status=0
if [ "$modules" = none ]; then
  log "NOT RUN: the module tests (TK4J_ARM64_MODULES=none)"
else
  t0=$(now)
  log "$modules tests on the aarch64 JVM"
  mvn_opt=(-fae)
  [ "$modules" = all ] || mvn_opt=(-pl "$modules")
  [ -n "$java_home" ] && mvn_opt+=(-Djvm="$java_home/bin/java")
  if [ -n "$native_only" ]; then
    log "not run emulated (architecture-independent; step 1 runs them natively): $native_only"
    mvn_opt+=("-Dtest=!${native_only//,/,!}" -Dsurefire.failIfNoSpecifiedTests=false)
  fi
  if (cd "$here" && mvn -B test "${mvn_opt[@]}"); then
    log "$modules tests passed: $(took "$t0")"
  else
    log "$modules tests FAILED on aarch64: $(took "$t0")"
    status=1
  fi
  skipped_report
fi

run_tk4j() {
  local t1
  t1=$(now)
  log "tk4j $* on the aarch64 JVM"
  if TK4J_JAVA_HOME="$java_home" "$here/tk4j" "$@"; then
    log "tk4j $*: ok, $(took "$t1")"
  else
    log "tk4j $*: FAILED (exit $?), $(took "$t1")"
    status=1
  fi
}
run_tk4j info
verify_opt=(--duration "$verify_seconds")
if [ -n "$min_samples" ]; then
  log "verify's minimum sample count set to $min_samples by TK4J_ARM64_MIN_SAMPLES (not its defaults)"
  verify_opt+=(--min-samples "$min_samples")
fi
run_tk4j verify all "${verify_opt[@]}"

log "total: $(took "$t_all")"
tests_said="$modules tests"; [ "$modules" = none ] && tests_said="no module tests (TK4J_ARM64_MODULES=none)"
min_said=""; [ -n "$min_samples" ] && min_said=" (minimum $min_samples samples, TK4J_ARM64_MIN_SAMPLES)"
[ "$status" = 0 ] && echo "aarch64: $tests_said, tk4j info and tk4j verify all$min_said passed" \
  || echo "aarch64: FAILED (see above)"
exit "$status"
