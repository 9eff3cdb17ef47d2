#!/usr/bin/env bash
# scripts/startup-bench.sh: a cold JVM's first read of a clock, with and without timekeeping4j, and what the JVM
# holds 300 ms later. Every variant is a fresh JVM; the variants alternate within each round (the order rotates
# from round to round), so load falls on all alike. Prints Markdown: each variant's median and range, its ratio to
# its baseline (and the difference), the resident memory 300 ms after the first read against the bare FFM program,
# the time until exact mode serves, and the start-up targets met or not. Figures: docs/PERFORMANCE.md.
#
#   scripts/startup-bench.sh                          # 10 rounds against this checkout's core (built if needed)
#   scripts/startup-bench.sh --rounds 20 --core ../other/core/target/classes
#   scripts/startup-bench.sh --footprint              # where the library's extra memory goes (classes, NMT)
#
# Options: --rounds N (10), --core JAR|DIR (the library: a jar or a classes directory; default: core/target's jar,
# built with Maven first), --no-aot (skip the AOT-cache variants), --only REGEX (variants whose name matches),
# --keep DIR (keep the raw lines, the AOT caches and the logs there), --jvm "OPTIONS" (added to every JVM, e.g.
# -XX:TieredStopAtLevel=1), --footprint.
# The programs: docs/bench/startup/{Bare,Lib,Probe}.java, summarised by docs/bench/startup/Summary.java.
# Finds a JDK 25 with scripts/java25; needs nothing else but Maven (only to build core when --core is not given).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rounds=10 core="" aot=1 only="" keep="" footprint=0 jvm=""
usage() { sed -n '2,17s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --core) core="$2"; shift 2 ;;
    --no-aot) aot=0; shift ;;
    --only) only="$2"; shift 2 ;;
    --jvm) jvm="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --footprint) footprint=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "startup-bench: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "startup-bench: --rounds takes a positive number" >&2; exit 2; }

jhome="$("$root/scripts/java25" --home)"
J="$jhome/bin"
if [ -n "$keep" ]; then mkdir -p "$keep"; work="$(cd "$keep" && pwd)"; else
  work="$(mktemp -d /tmp/startup-bench.XXXXXX)"; trap 'rm -rf "$work"' EXIT
fi

# name | baseline | how it runs | program and arguments. Kinds: bare (no library), bare-mp (no library, an empty
# module on the module path), one and one-core (OneClass in a jar of its own, or in a copy of core's), one-core-mp
# (ModuleOneClass added to a copy of core's jar, that module on the module path), cp (class
# path), mp (module path); aot-* runs with the AOT cache its training run (the same variant once, beforehand) wrote.
variants=(
  "jdk-nanotime||bare|Bare nanotime"
  "jdk-instant||bare|Bare instant"
  "ffm-monotonic||bare|Bare ffm-monotonic"
  "ffm-realtime||bare|Bare ffm-realtime"
  "ffm-boottime||bare|Bare ffm-boottime"
  "ffm-monotonic-mp||bare-mp|Bare ffm-monotonic"
  "one-class-jar|jdk-nanotime|one|Bare one-class"
  "one-class-core-sized-jar|jdk-nanotime|one-core|Bare one-class"
  "one-class-core-sized-module|jdk-nanotime|one-core-mp|Bare one-class-module"
  "cp-monotonic|jdk-nanotime|cp|Lib monotonic nanos"
  "cp-realtime|jdk-instant|cp|Lib realtime nanos"
  "cp-boottime|ffm-boottime|cp|Lib boottime nanos"
  "cp-reader-monotonic|jdk-nanotime|cp|Lib monotonic reader"
  "cp-reader-realtime|jdk-instant|cp|Lib realtime reader"
  "mp-monotonic|jdk-nanotime|mp|Lib monotonic nanos"
  "mp-realtime|jdk-instant|mp|Lib realtime nanos"
  "mp-boottime|ffm-boottime|mp|Lib boottime nanos"
  "cp-serve|jdk-nanotime|cp|Lib monotonic nanos serve"
)
if [ "$aot" = 1 ]; then
  variants+=(
    "aot-ffm-monotonic|ffm-monotonic|bare|Bare ffm-monotonic"
    "aot-ffm-boottime|ffm-boottime|bare|Bare ffm-boottime"
    "aot-cp-monotonic|cp-monotonic|cp|Lib monotonic nanos"
    "aot-cp-boottime|cp-boottime|cp|Lib boottime nanos"
    "aot-mp-monotonic|mp-monotonic|mp|Lib monotonic nanos"
    "aot-cp-serve|cp-serve|cp|Lib monotonic nanos serve"
  )
fi
if [ -n "$only" ]; then
  kept=()
  for v in "${variants[@]}"; do [[ "${v%%|*}" =~ $only ]] && kept+=("$v"); done
  variants=("${kept[@]}")
fi
[ "${#variants[@]}" -gt 0 ] || { echo "startup-bench: --only $only selects no variant" >&2; exit 2; }

# The library under test: a jar, or a classes directory made into one (an AOT cache takes classes from jars only).
if [ -z "$core" ]; then
  echo "startup-bench: building core (mvn -pl core -am package)" >&2
  (cd "$root" && export JAVA_HOME="$jhome" && { mvn -B -q -o -pl core -am package -DskipTests \
      -Dmaven.javadoc.skip=true -Dmaven.source.skip=true >"$work/mvn.log" 2>&1 || mvn -B -q -pl core -am package \
      -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true >"$work/mvn.log" 2>&1; }) \
    || { tail -20 "$work/mvn.log" >&2; exit 1; }
  core="$(ls "$root"/core/target/timekeeping4j-core-*.jar | grep -v -e -sources -e -javadoc -e -tests | head -n 1)"
  code="$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- core || echo ' (uncommitted changes)')"
else
  code="$core"
  if c="$(git -C "$(dirname "$core")" rev-parse --short HEAD 2>/dev/null)"; then code="$core at $c"; fi
fi
if [ -d "$core" ]; then "$J/jar" --create --file "$work/core.jar" -C "$core" .; else cp "$core" "$work/core.jar"; fi

# The programs, compiled without the string-concat bootstrap so that printing loads the same classes everywhere.
mkdir -p "$work/classes" "$work/one" "$work/modone"
# A library's floor: one class in a jar of its own, the same class added to a copy of core's jar, and on the module
# path a class of a package of its own added to a copy of core's modular jar (jar --update lists the package).
"$J/javac" --release 25 -d "$work/one" "$root/docs/bench/startup/OneClass.java"
"$J/jar" --create --file "$work/one.jar" -C "$work/one" .
cp "$work/core.jar" "$work/core-one.jar" && "$J/jar" --update --file "$work/core-one.jar" -C "$work/one" .
"$J/javac" --release 25 -d "$work/modone" "$root/docs/bench/startup/ModuleOneClass.java"
cp "$work/core.jar" "$work/core-mod-one.jar" && "$J/jar" --update --file "$work/core-mod-one.jar" -C "$work/modone" .
"$J/javac" --release 25 -XDstringConcat=inline -nowarn -cp "$work/core.jar:$work/one:$work/modone" -d "$work/classes" \
  "$root"/docs/bench/startup/{Probe,Bare,Lib}.java
"$J/jar" --create --file "$work/bench.jar" -C "$work/classes" .
# A module with nothing in it, for the bare program on the module path: what any module there costs the JVM (it
# resolves the module graph at start-up instead of using its archived one), the module-path variants' baseline.
mkdir -p "$work/empty/src" "$work/empty/classes"
echo 'module timekeeping4j.bench.empty {}' >"$work/empty/src/module-info.java"
"$J/javac" --release 25 -d "$work/empty/classes" "$work/empty/src/module-info.java"
"$J/jar" --create --file "$work/empty.jar" -C "$work/empty/classes" .

# jvmargs VARIANT: the JVM's options for it, one a line.
jvmargs() {
  local name kind
  IFS='|' read -r name _ kind _ <<<"$1"
  case "$kind" in
    bare) printf '%s\n' -cp "$work/bench.jar" --enable-native-access=ALL-UNNAMED ;;
    one) printf '%s\n' -cp "$work/bench.jar:$work/one.jar" --enable-native-access=ALL-UNNAMED ;;
    one-core) printf '%s\n' -cp "$work/bench.jar:$work/core-one.jar" --enable-native-access=ALL-UNNAMED ;;
    one-core-mp) printf '%s\n' -cp "$work/bench.jar" -p "$work/core-mod-one.jar" --add-modules org.timekeeping4j \
          --add-exports org.timekeeping4j/org.timekeeping4j.startupfloor=ALL-UNNAMED \
          --enable-native-access=org.timekeeping4j ;;
    bare-mp) printf '%s\n' -cp "$work/bench.jar" -p "$work/empty.jar" --add-modules timekeeping4j.bench.empty \
          --enable-native-access=ALL-UNNAMED ;;
    cp) printf '%s\n' -cp "$work/bench.jar:$work/core.jar" --enable-native-access=ALL-UNNAMED ;;
    mp) printf '%s\n' -cp "$work/bench.jar" -p "$work/core.jar" --add-modules org.timekeeping4j \
          --enable-native-access=org.timekeeping4j ;;
  esac
  if [[ "$name" == aot-* ]]; then printf '%s\n' -XX:AOTMode=on "-XX:AOTCache=$work/$name.aot"; fi
}

# run VARIANT EXTRA-JVM-OPTIONS...: one cold JVM; prints its output.
run() {
  local v="$1"; shift
  local prog args
  mapfile -t args < <(jvmargs "$v")
  IFS='|' read -r _ _ _ prog <<<"$v"
  # shellcheck disable=SC2086 # --jvm's options, the program and its arguments are words
  "$J/java" "${args[@]}" $jvm "$@" "-Dsb.launchMicros=${EPOCHREALTIME/[.,]/}" $prog
}

cpu="$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
cs="$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
jdkv="$("$J/java" -version 2>&1 | sed -n 2p)"
{
  echo "code: $code"
  echo "cpu: $cpu, $(nproc) CPUs, Linux $(uname -r), clocksource $cs"
  echo "jdk: $jdkv${jvm:+, with $jvm}"
} >"$work/header"

if [ "$footprint" = 1 ]; then
  # One JVM per variant with class loading logged and native memory tracked (NMT's summary at exit, 300 ms after
  # the first read plus the printing): what the library loads, and which of the JVM's areas grew.
  for v in "${variants[@]}"; do
    name="${v%%|*}"
    case "$name" in ffm-monotonic|cp-monotonic|mp-monotonic|cp-boottime|aot-ffm-monotonic|aot-cp-monotonic) ;; *) continue ;; esac
    if [[ "$name" == aot-* ]]; then # trained afresh: a cache holds the jars' times and refuses others
      run "${v/#aot-/train-}" "-XX:AOTCacheOutput=$work/$name.aot" >"$work/$name.train.log" 2>&1
    fi
    run "$v" "-Xlog:class+load=info:file=$work/$name.classes" -XX:NativeMemoryTracking=summary \
      -XX:+UnlockDiagnosticVMOptions -XX:+PrintNMTStatistics >"$work/$name.nmt" 2>&1
  done
  "$J/java" "$root/docs/bench/startup/Summary.java" footprint "$work"
  exit 0
fi

# The AOT caches: one training run of each AOT variant (JDK 25: -XX:AOTCacheOutput trains and writes the cache).
for v in "${variants[@]}"; do
  name="${v%%|*}"
  [[ "$name" == aot-* ]] || continue
  echo "startup-bench: training $name" >&2
  run "${v/#aot-/train-}" "-XX:AOTCacheOutput=$work/$name.aot" >"$work/$name.train.log" 2>&1 \
    || { tail -5 "$work/$name.train.log" >&2; exit 1; }
done

: >"$work/results"
printf '%s\n' "${variants[@]}" | cut -d'|' -f1,2 >"$work/variants"
n="${#variants[@]}"
echo "startup-bench: $rounds rounds of $n cold JVMs ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'))" >&2
for ((r = 0; r < rounds; r++)); do
  echo "load $r $(cut -d' ' -f1 /proc/loadavg)" >>"$work/results"
  for ((i = 0; i < n; i++)); do
    v="${variants[$(((i + r) % n))]}"
    if ! line="$(run "$v" 2>"$work/stderr")"; then
      echo "startup-bench: ${v%%|*} failed:" >&2; cat "$work/stderr" >&2; exit 1
    fi
    echo "${v%%|*} $r $line" >>"$work/results"
  done
  echo "load $r $(cut -d' ' -f1 /proc/loadavg)" >>"$work/results"
  printf '.' >&2
done
echo >&2
"$J/java" "$root/docs/bench/startup/Summary.java" summary "$work"
