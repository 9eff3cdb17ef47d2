#!/usr/bin/env bash
# scripts/readme-snippet.sh: compiles the README's "Using it" snippet as written, against the built core jar
# (core/target/timekeeping4j-core-*.jar: run `mvn -B -q -pl core package -DskipTests` first), in a throwaway Maven
# project outside the repository. The snippet is the body of a method in a class that imports org.timekeeping4j.*
# and java.time.*; nothing else is added to it. Exit status 0 when it compiles; 1 (with javac's message) when not;
# 2 when it cannot run here.
# Environment: TK4J_JAVA_HOME / JAVA_HOME (a JDK 25+; default /usr/lib/jvm/temurin-25-jdk-amd64).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jdk="${TK4J_JAVA_HOME:-${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}}"
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
