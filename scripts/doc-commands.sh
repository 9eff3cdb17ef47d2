#!/usr/bin/env bash
# scripts/doc-commands.sh: the commands in README.md, CONTRIBUTING.md and docs/*.md work as written where the default
# java is older than 25 (scripts/DocCommands.java says how each is checked: JMH and jcstress filters list at least
# one benchmark, tk4j verbs and options parse, the start-up probe compiles and runs, no bare java or javac), and the
# README's code works as a user meets it (scripts/readme-snippet.sh: the statements compile, the quick start's
# project builds and runs with Maven 3.8 and 3.9), and so do docs/ADAPTERS.md's programs (scripts/adapters-snippets.sh:
# each builds with its dependency blocks and runs, printing what the doc says). Needs the build's jars: run after
# `mvn -B verify` (CI does); builds the adapters' benchmark jar (profile jmh) if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f adapters/benchmarks/target/benchmarks.jar ]; then
  echo "doc-commands: building the adapters' benchmark jar (mvn -Pjmh -pl adapters/benchmarks -am package)"
  mvn -B -q -Pjmh -pl adapters/benchmarks -am package -DskipTests
fi
scripts/java25 -cp cli/target/tk4j.jar scripts/DocCommands.java
bash scripts/readme-snippet.sh
bash scripts/adapters-snippets.sh
