#!/usr/bin/env bash
# scripts/adapters-snippets.sh: every program in docs/ADAPTERS.md builds and runs as written, as a user gets it.
#   1. The project's artifacts (parent, core, test-clocks, the adapters, the BOM) installed by `mvn install` into a
#      repository of this run's own under /tmp, never ~/.m2 (Maven 3.9's local repository tail: ~/.m2 read-only
#      behind it, for the plugins and the frameworks).
#   2. For each ```java block (a compact source file): the README's quick-start pom.xml with, in place of its
#      <dependencies>, the doc's BOM import (its version must be the build's) and the ```xml <dependencies> block
#      just before the program, as written; the program as src/main/java/Hello.java; built with the quick start's
#      `mvn -B -q package` (offline; once online if a framework's artifact is not in ~/.m2, saying so) and run with
#      its java line, or the `$JAVA_HOME/bin/java` line of the program's section. The timekeeping4j jars it copied
#      must be the build's, and what it prints must match what the doc says (the table `expect` below).
# Needs the built jars (after `mvn -B verify`, as in CI; or `mvn -B -o -q package -DskipTests` of those modules).
# Exit 0 when every program works; 1 with one line naming the section when one does not; 2 when it cannot run here.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
doc="$here/docs/ADAPTERS.md"
jdk="$("$here/scripts/java25" --home)" || exit 2
start=$SECONDS
fail() { echo "adapters-snippets: FAILED: $*" >&2; exit 1; }

# What each program must print (an extended regex, matched against a line of its output), by section and number.
declare -A expect=(
  ["OpenTelemetry SDK#1"]="'work' : [0-9a-f]{32} [0-9a-f]{16} INTERNAL"
  ["Micrometer#1"]='^work\(TIMER\)\[\]; count=1\.0, total_time=0\.[0-9]+ seconds'
  ["Bounded-clock metrics#1"]="^timekeeping\.bounds\.status\(GAUGE\)\[source='[a-z]+', status='[a-z_]+'\]; value=1\.0"
  ["Bounded-clock metrics#2"]='name=timekeeping\.bounds\.status, description=[^=]*, unit=\{status\}, type=LONG_GAUGE'
  ["Log4j 2#1"]='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9} stamped by timekeeping4j$'
  ["Agrona#1"]='^recorded: true$'
  ["Caffeine#1"]='^session 1$'
  ["Guava#1"]='^session 1 after [0-9.]+ (ns|μs|ms|s)$'
  ["Testing code that reads time#1"]='^expired after 30 minutes: true$'
)

version=$(sed -n '/<artifactId>timekeeping4j-parent</,/<version>/s|.*<version>\(.*\)</version>.*|\1|p' "$here/pom.xml" | head -n 1)
m39="${TK4J_MAVEN39:-${TK4J_CACHE:-$HOME/.cache/timekeeping4j}/maven-3.9.11}"
if [ ! -x "$m39/bin/mvn" ]; then # as scripts/readme-snippet.sh gets it
  echo "adapters-snippets: fetching Maven 3.9.11 from Maven Central into $m39"
  (cd /tmp && mvn -B -q dependency:copy -Dartifact=org.apache.maven:apache-maven:3.9.11:tar.gz:bin \
    -DoutputDirectory="$m39.dl") && mkdir -p "$m39" \
    && tar -xzf "$m39.dl/apache-maven-3.9.11-bin.tar.gz" -C "$m39" --strip-components=1 && rm -rf "$m39.dl" \
    || { echo "adapters-snippets: no Maven 3.9 (set TK4J_MAVEN39 to a Maven 3.9 home)" >&2; exit 2; }
fi
work=$(mktemp -d /tmp/tk4j-adapters-snippets.XXXXXX)
trap '[ -n "${TK4J_KEEP:-}" ] || rm -rf "$work"' EXIT
repo=(-Dmaven.repo.local="$work/repo" -Dmaven.repo.local.tail="$HOME/.m2/repository")

# --- 1. the artifacts, as `mvn install` gives them, into this run's repository
modules=core,test-clocks,bom,adapters/opentelemetry,adapters/micrometer,adapters/log4j,adapters/agrona,adapters/caffeine,adapters/guava
(cd "$here" && JAVA_HOME="$jdk" "$m39/bin/mvn" -B -q -o install -DskipTests -Dmaven.javadoc.skip=true \
  -Dmaven.source.skip=true -pl "$modules" -am "${repo[@]}") >"$work/install.log" 2>&1 \
  || { tail -n 20 "$work/install.log" >&2; fail "mvn install of $modules into $work/repo"; }

# --- 2. the doc's blocks: bom.xml; per program N: N.java, N.deps, N.where ("section#i line"), N.run
awk -v out="$work" '
  function flush() { for (k in pending) { printf "%s", run > (out "/" k ".run"); close(out "/" k ".run") }
                     delete pending; run = "" }
  !fence && /^## / { flush(); section = substr($0, 4); i = 0 }
  !fence && /^```/ { fence = 1; kind = substr($0, 4); buf = ""; at = NR; next }
  fence && /^```$/ {
    fence = 0
    if (kind == "xml" && buf ~ /<dependencyManagement>/) { printf "%s", buf > (out "/bom.xml") }
    else if (kind == "xml" && buf ~ /<dependencies>/) { deps = buf }
    else if (kind == "" && buf ~ /^\$JAVA_HOME\/bin\/java /) { run = buf }
    else if (kind == "java") {
      n++; i++; pending[n] = 1
      printf "%s", buf > (out "/" n ".java"); printf "%s", deps > (out "/" n ".deps")
      printf "%s#%d line %d\n", section, i, at > (out "/" n ".where")
      close(out "/" n ".java"); close(out "/" n ".deps"); close(out "/" n ".where")
    }
    next
  }
  fence { buf = buf $0 "\n" }
  END { flush() }' "$doc"
[ -s "$work/bom.xml" ] || fail "docs/ADAPTERS.md has no \`\`\`xml block with the BOM's <dependencyManagement>"
grep -q "<artifactId>timekeeping4j-bom</artifactId><version>$version</version>" "$work/bom.xml" \
  || fail "docs/ADAPTERS.md: the BOM import's version is not the build's, $version"
readme_block() { # the first ```$1 block under the README's "## Quick start"
  awk -v b="$1" '$0 == "## Quick start" { on = 1; next } on && /^## / { exit } on && $0 == "```" b { grab = 1; next }
    grab && /^```/ { exit } grab' "$here/README.md"
}
readme_pom=$(readme_block xml)
readme_run=$(awk '$0 == "## Quick start" { on = 1; next } on && /^## / { exit } on && /^\$JAVA_HOME\/bin\/java /' "$here/README.md")
[ -n "$readme_pom" ] && [ -n "$readme_run" ] || fail "README.md: no pom.xml or java line under '## Quick start'"

count=$(ls "$work"/*.java 2>/dev/null | wc -l)
[ "$count" -gt 0 ] || fail "docs/ADAPTERS.md has no \`\`\`java block"
for ((n = 1; n <= count; n++)); do
  where=$(cat "$work/$n.where") key=${where% line *} q="$work/p$n"
  name="docs/ADAPTERS.md '${key%#*}' (program ${key##*#}, line ${where##* line })"
  [ -n "${expect[$key]:-}" ] || fail "$name: no expected output for it in scripts/adapters-snippets.sh"
  [ -s "$work/$n.deps" ] || fail "$name: no \`\`\`xml <dependencies> block before it"
  mkdir -p "$q/src/main/java"; t0=$SECONDS
  cp "$work/$n.java" "$q/src/main/java/Hello.java"
  printf '%s\n' "$readme_pom" | awk -v bom="$work/bom.xml" -v deps="$work/$n.deps" '
    /<dependencies>/ { while ((getline l < bom) > 0) print l; while ((getline l < deps) > 0) print l; skip = 1 }
    !skip { print } /<\/dependencies>/ { skip = 0 }' >"$q/pom.xml"
  if ! (cd "$q" && JAVA_HOME="$jdk" "$m39/bin/mvn" -B -q -o package "${repo[@]}") >"$q/mvn.log" 2>&1; then
    if grep -qE 'offline|has not been downloaded' "$q/mvn.log"; then
      echo "adapters-snippets: $name: not all of its dependencies are in ~/.m2; trying once online (Maven Central)"
      grep -oE "artifact [^ ]+ has not been downloaded|Cannot access [^ ]+ in offline mode[^,]*" "$q/mvn.log" | sort -u | sed 's/^/  /'
      (cd "$q" && JAVA_HOME="$jdk" "$m39/bin/mvn" -B -q package "${repo[@]}") >"$q/mvn.log" 2>&1 \
        || { tail -n 20 "$q/mvn.log" >&2; fail "$name: does not build as written (online too)"; }
    else
      grep -E 'ERROR' "$q/mvn.log" | head -n 20 >&2; fail "$name: does not build as written"
    fi
  fi
  for j in "$q"/target/dependency/timekeeping4j-*.jar; do
    built=$(find "$here" -path "*/target/$(basename "$j")" -not -path "$work/*" | head -n 1)
    [ -n "$built" ] && cmp -s "$j" "$built" || fail "$name: $(basename "$j") is not the build's (a stale copy?)"
  done
  ls "$q"/target/dependency/timekeeping4j-*.jar >/dev/null 2>&1 || fail "$name: no timekeeping4j jar among its dependencies"
  cmd=$(cat "$work/$n.run"); cmd=${cmd:-$readme_run}; t1=$SECONDS
  out=$(cd "$q" && JAVA_HOME="$jdk" timeout 120 bash -c "$cmd" 2>&1) || { printf '%s\n' "$out" | tail -n 20 >&2
    fail "$name: does not run as written (exit $?)"; }
  printf '%s\n' "$out" | grep -Eq -- "${expect[$key]}" || { printf '%s\n' "$out" | tail -n 20 >&2
    fail "$name: its output has no line matching ${expect[$key]}"; }
  echo "adapters-snippets: OK $name (built $((t1 - t0)) s, ran $((SECONDS - t1)) s):" \
    "$(printf '%s\n' "$out" | grep -Eo -m 1 -- "${expect[$key]}" | cut -c 1-100)"
done
echo "adapters-snippets: $count programs of docs/ADAPTERS.md built and ran against timekeeping4j $version in $((SECONDS - start)) s"
