#!/usr/bin/env bash
# scripts/readme-snippet.sh: the README's code as a user meets it, in throwaway projects outside the repository.
#   1. "Using it": the statements, as the body of a method in a class that imports org.timekeeping4j.* and
#      java.time.*, compile against the built core jar (core/target: `mvn -B -q -pl core package -DskipTests`).
#   2. "Quick start": the pom.xml and Hello.java blocks as written, after the README's own install of a clone
#      (`mvn -B install -DskipTests`, core and its parent), built and run with the README's two commands, JAVA_HOME a
#      JDK 25 (scripts/java25 --home); its output must have the README's shape. With Maven 3.8 (this machine's), and
#      with 3.9 where TK4J_MAVEN39 names its home or Maven Central can give it (cached in ~/.cache/timekeeping4j).
# Exit status 0 when all of it works; 1 (with the reason) when not; 2 when it cannot run here.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jdk="$("$here/scripts/java25" --home)" || exit 2
[ -x "$jdk/bin/javac" ] || { echo "readme-snippet: no javac in $jdk (set TK4J_JAVA_HOME to a JDK 25+)" >&2; exit 2; }
jar=$(ls "$here"/core/target/timekeeping4j-core-*.jar 2>/dev/null | grep -Ev -- '-(tests|sources|javadoc)\.jar$' | head -n 1)
[ -n "$jar" ] || { echo "readme-snippet: no core jar in core/target: run mvn -B -q -pl core package -DskipTests" >&2; exit 2; }

work=$(mktemp -d /tmp/tk4j-readme-snippet.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/main/java/snippet"
# The first ```java block after the "## Using it" heading.
snippet=$(awk '/^## Using it/ { on = 1 } on && /^```java/ { grab = 1; next } grab && /^```/ { exit } grab' "$here/README.md")
[ -n "$snippet" ] || { echo "readme-snippet: no \`\`\`java block under '## Using it' in README.md" >&2; exit 2; }
{
  echo 'package snippet;'
  echo 'import java.time.*;'
  echo 'import org.timekeeping4j.*;'
  echo 'class ReadmeSnippet {'
  echo '    static void run() throws Exception {'
  printf '%s\n' "$snippet"
  echo '    }'
  echo '}'
} > "$work/src/main/java/snippet/ReadmeSnippet.java"
cat > "$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>snippet</groupId>
  <artifactId>readme-snippet</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>25</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.timekeeping4j</groupId>
      <artifactId>timekeeping4j-core</artifactId>
      <version>local</version>
      <scope>system</scope>
      <systemPath>$jar</systemPath>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-resources-plugin</artifactId>
        <version>3.3.1</version>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.14.1</version>
        <configuration><compilerArgs><arg>-Xlint:all,-options</arg></compilerArgs></configuration>
      </plugin>
    </plugins>
  </build>
</project>
EOF
if (cd "$work" && JAVA_HOME="$jdk" mvn -B -q -o compile >"$work/mvn.log" 2>&1); then
  echo "readme-snippet: the README's snippet ($(printf '%s\n' "$snippet" | wc -l) lines) compiles against $(basename "$jar")"
else
  grep -E 'ReadmeSnippet.java' "$work/mvn.log" | sed 's|.*ReadmeSnippet.java|ReadmeSnippet.java|' | head -20 >&2
  echo "readme-snippet: FAILED: the README's snippet does not compile as written" >&2
  exit 1
fi

# --- 2. the quick start ---
block() { # the first ```$2 block under the heading $1
  awk -v h="$1" -v b="$2" '$0 == h { on = 1; next } on && /^## / { exit } on && $0 == "```" b { grab = 1; next } grab && /^```/ { exit } grab' "$here/README.md"
}
pom="$(block '## Quick start' xml)" hello="$(block '## Quick start' java)"
[ -n "$pom" ] && [ -n "$hello" ] || { echo "readme-snippet: no xml and java blocks under '## Quick start'" >&2; exit 2; }
(cd "$here" && mvn -B -q install -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -pl core -am) \
  >"$work/install.log" 2>&1 || { tail -n 20 "$work/install.log" >&2; echo "readme-snippet: FAILED: mvn install of core" >&2; exit 1; }
run_quick_start() { # maven-home-or-empty label
  local q="$work/quick-$2" mvn_cmd=mvn out
  [ -n "$1" ] && mvn_cmd="$1/bin/mvn"
  mkdir -p "$q/src/main/java"
  printf '%s\n' "$pom" >"$q/pom.xml"
  printf '%s\n' "$hello" >"$q/src/main/java/Hello.java"
  # The README's commands, as written, with JAVA_HOME a JDK 25.
  if ! (cd "$q" && JAVA_HOME="$jdk" "$mvn_cmd" -B -q package) >"$q/mvn.log" 2>&1; then
    tail -n 20 "$q/mvn.log" >&2; echo "readme-snippet: FAILED: the quick start does not build with $2" >&2; return 1
  fi
  out="$(cd "$q" && JAVA_HOME="$jdk" bash -c "\$JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED -cp 'target/classes:target/dependency/*' Hello" 2>&1)" || {
    echo "$out" >&2; echo "readme-snippet: FAILED: the quick start does not run ($2)" >&2; return 1; }
  if ! printf '%s\n' "$out" | head -n 1 | grep -Eq '^TAI [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z from the (counter|kernel)$' \
     || ! printf '%s\n' "$out" | sed -n 2p | grep -Eq '^two MONOTONIC reads [0-9]+ ns apart \(the least of 100,000 pairs\)$' \
     || ! printf '%s\n' "$out" | sed -n 3p | grep -Eq '^CLOCK_TAI'; then
    echo "$out" >&2; echo "readme-snippet: FAILED: the quick start's output is not the README's shape ($2)" >&2; return 1
  fi
  echo "readme-snippet: the quick start builds and runs with $2: $(printf '%s' "$out" | tr '\n' ';')"
}
run_quick_start "" "$(mvn -B -v 2>/dev/null | head -n 1 | sed -e 's/\x1b\[[0-9;]*m//g' -e 's/ (.*//')" || exit 1
m39="${TK4J_MAVEN39:-}"
if [ -z "$m39" ]; then
  cache="${TK4J_CACHE:-$HOME/.cache/timekeeping4j}/maven-3.9.11"
  if [ ! -x "$cache/bin/mvn" ]; then
    (cd "$work" && mvn -B -q dependency:copy -Dartifact=org.apache.maven:apache-maven:3.9.11:tar.gz:bin \
      -DoutputDirectory="$work/m39") >"$work/m39.log" 2>&1 \
      && mkdir -p "$cache" && tar -xzf "$work"/m39/apache-maven-3.9.11-bin.tar.gz -C "$cache" --strip-components=1 \
      || { tail -n 5 "$work/m39.log" >&2; echo "readme-snippet: FAILED: Maven 3.9 could not be fetched from Maven Central (set TK4J_MAVEN39 to a Maven 3.9 home)" >&2; exit 1; }
  fi
  m39="$cache"
fi
run_quick_start "$m39" "$("$m39/bin/mvn" -B -v 2>/dev/null | head -n 1 | sed -e 's/\x1b\[[0-9;]*m//g' -e 's/ (.*//')" || exit 1
