#!/usr/bin/env bash
# scripts/lab/uml-suite.sh: the whole UML lab suite, one command for CI and for people. On a fresh machine of this
# kind it installs what it needs, builds the guest kernel once (scripts/lab/uml.sh; minutes, cached), builds the
# project's CLI and core test classes (Maven), then boots the guest twice and runs, as root inside:
#   boot 1 (default kernel command line): the JUnit tests tagged lab (org.timekeeping4j.lab: pps_ktimer,
#     netdevsim's mock PHC, AUX clocks, leap seconds, tk4j pps / phc / verify consistency across leaps);
#   boot 2 (highres=off nohz=off, so that the jiffies clocksource can be selected): the tests tagged
#     lab-clocksource (timer <-> jiffies switches during the library's reads and tk4j verify consistency).
# The tests run with the JUnit console launcher (junit-platform-console-standalone, from Maven Central).
#
# Exit status: 0 when every test passed and no lab test was skipped; 1 when a test failed or a lab test skipped
# (the reasons are printed); 2 when the suite cannot be set up here (the reason is printed: it never passes by
# skipping). TK4J_LAB=off opts out explicitly: it prints that it was used and exits 0.
# With arguments, one boot runs just them as the launcher's selection (e.g. --select-class
# org.timekeeping4j.lab.PpsLabTest; TK4J_LAB_APPEND for kernel arguments); `phc` runs only PhcFastLabTest (the PHC
# at counter speed against netdevsim's mock PHC while it is steered), which boot 1 includes.
# Environment: TK4J_LAB (off), TK4J_LAB_CACHE / TK4J_CACHE (see scripts/lab/uml.sh), TK4J_JAVA_HOME / JAVA_HOME (a JDK 25+).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$here/target/lab"
console_version=1.14.1   # junit-platform of the JUnit BOM in pom.xml (junit.version 5.14.1)

if [ "${TK4J_LAB:-}" = off ]; then
  echo "lab(uml) suite: NOT RUN: TK4J_LAB=off was set (explicit opt-out); the lab's driver, leap-second and"
  echo "lab(uml) suite: clocksource tests did not run, so this run proves nothing about them."
  exit 0
fi

log() { printf 'lab(uml) suite: %s\n' "$*" >&2; }
cannot() { printf 'lab(uml) suite: FAILED: cannot set up: %s\n' "$*" >&2; exit 2; }
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f s", b - a }'; }
t_start=$(now)

[ "$(id -u)" = 0 ] || cannot "the lab runs as root (the guest's root is this machine's root, read-only); run it as root"
[ "$(uname -m)" = x86_64 ] || cannot "the UML lab is built for x86_64 hosts; this is $(uname -m)"

# The JDK 25 ./tk4j would run (scripts/java25 looks where it looks).
jdk="$("$here/scripts/java25" --home 2>/dev/null)" \
  || cannot "no JDK 25 or newer (looked at TK4J_JAVA_HOME, JAVA_HOME, PATH, /usr/lib/jvm, /opt/java, ~/.jdks, ~/.sdkman)"
if ! command -v mvn >/dev/null; then
  log "installing maven (apt-get, this machine's own suites)"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 maven; } \
    >/dev/null 2>&1 || cannot "Maven (mvn) is missing and apt-get install maven failed"
fi

log "guest kernel"
"$here/scripts/lab/uml.sh" --prepare >/dev/null || cannot "the UML guest kernel could not be built or found (above)"

log "building the CLI and the core test classes (mvn package -DskipTests)"
mkdir -p "$out/lib"
mvn_log="$out/mvn.log"
(cd "$here" && mvn -B -q -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -pl cli -am package \
  && mvn -B -q -pl core dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$out/core-test.classpath" \
  && mvn -B -q dependency:copy -Dartifact="org.junit.platform:junit-platform-console-standalone:$console_version" \
       -DoutputDirectory="$out/lib" -Dmdep.overWriteIfNewer=true -N) >"$mvn_log" 2>&1 \
  || { tail -30 "$mvn_log" >&2; cannot "the Maven build failed (log: $mvn_log)"; }
console="$out/lib/junit-platform-console-standalone-$console_version.jar"
[ -f "$console" ] || cannot "no $console after mvn dependency:copy"
# The standalone launcher brings JUnit itself: the project's JUnit jars stay off the class path.
deps=$(tr ':' '\n' < "$out/core-test.classpath" | grep -Ev '/org/junit/|/opentest4j/|/apiguardian/' | paste -sd: -)
cp="$here/core/target/test-classes:$here/core/target/classes${deps:+:$deps}"

failed=0
# One guest boot running the console launcher; $1: the run's name, $2: extra kernel arguments, then the launcher's
# selection arguments.
run_guest() {
  local name=$1 append=$2; shift 2
  local reports="$out/reports-$name" t0 rc=0
  rm -rf "$reports"
  t0=$(now)
  log "guest run '$name'${append:+ (kernel: $append)}"
  TK4J_LAB_APPEND="$append" "$here/scripts/lab.sh" "$jdk/bin/java" --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC \
    -Dtimekeeping4j.test.steerHost=true -Dtimekeeping4j.lab.tk4j="$here/cli/target/tk4j.jar" \
    -jar "$console" execute --disable-banner --disable-ansi-colors --details=tree --details-theme=ascii --fail-if-no-tests \
    --class-path "$cp" --reports-dir "$reports" "$@" || rc=$?
  log "guest run '$name' ended with exit $rc after $(took "$t0")"
  [ "$rc" = 125 ] && cannot "the guest did not boot or did not report the launcher's exit (above)"
  [ "$rc" = 0 ] || failed=1
  # A lab test that did not run proves nothing: its skip fails the suite. Other skips are listed with their reason.
  local f
  for f in "$reports"/*.xml; do
    [ -f "$f" ] || { log "no JUnit report in $reports"; failed=1; continue; }
    awk '
      /<testcase / { name = $0; sub(/.*<testcase name="/, "", name); sub(/".*/, "", name)
                     cls = $0; sub(/.*classname="/, "", cls); sub(/".*/, "", cls) }
      /<skipped/   { why = $0; sub(/.*<skipped[^>]*>/, "", why); sub(/^<!\[CDATA\[/, "", why); sub(/\]\]>.*/, "", why)
                     if (why == "") why = "(no reason given)"
                     print (cls ~ /\.lab\./ ? "LAB TEST SKIPPED (fails the suite): " : "skipped: ") cls "." name ": " why }
    ' "$f" | tee "$reports/skipped.txt" >&2
    grep -q '^LAB TEST SKIPPED' "$reports/skipped.txt" && failed=1
  done
  return 0
}

if [ "${1:-}" = phc ]; then   # the PHC at counter speed alone (issue 47): netdevsim's mock PHC, steered
  run_guest phc "" --select-class org.timekeeping4j.lab.PhcFastLabTest
elif [ $# -gt 0 ]; then   # a developer's selection: one boot, these launcher arguments
  run_guest selection "${TK4J_LAB_APPEND:-}" "$@"
else
run_guest main "" --select-package org.timekeeping4j.lab --exclude-tag lab-clocksource
run_guest clocksource "highres=off nohz=off" --select-package org.timekeeping4j.lab \
  --include-tag lab-clocksource
fi

if [ "$failed" != 0 ]; then
  log "FAILED (reports in $out/reports-*; total $(took "$t_start"))"
  exit 1
fi
log "passed (total $(took "$t_start"))"
