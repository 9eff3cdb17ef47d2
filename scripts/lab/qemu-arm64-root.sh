#!/usr/bin/env bash
# scripts/lab/qemu-arm64-root.sh: builds (once) and prints an arm64 Debian trixie root holding
# openjdk-25-jre-headless, bash and the coreutils, for the QEMU lab's arm64 guests (and scripts/arm64.sh).
#
# No mmdebstrap and no emulated maintainer scripts: the packages and their dependency closure are fetched
# through a private apt configuration (apt-cache depends --recurse, apt-get download; /etc/apt untouched) and
# unpacked with dpkg-deb -x over a merged-/usr skeleton. Nothing is configured, which a JVM does not need (no
# alternatives: the JDK is run by its path, /usr/lib/jvm/java-25-openjdk-arm64/bin/java). A minute cold,
# against 5 to 13 minutes for mmdebstrap under qemu-user on the 2-core VM.
# Cached in $TK4J_LAB_CACHE/qemu/arm64-root; delete it (or change the stamp below) to rebuild.
set -euo pipefail
cache="${TK4J_LAB_CACHE:-$HOME/.cache/timekeeping4j/lab}/qemu"
# The Debian archive this machine's apt uses (TK4J_LAB_DEBIAN_MIRROR overrides it): debian-mirror.sh.
. "$(dirname "${BASH_SOURCE[0]}")/debian-mirror.sh"
mirror="$(debian_mirror)"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
suite=trixie
packages="openjdk-25-jre-headless bash coreutils sed grep findutils util-linux procps"
stamp="suite=$suite packages=$packages v1"
root="$cache/arm64-root"
java=/usr/lib/jvm/java-25-openjdk-arm64/bin/java

fail() { echo "qemu-arm64-root: $*" >&2; exit 1; }
if [ "$(cat "$root/.tk4j-root" 2>/dev/null)" = "$stamp" ]; then echo "$root"; exit 0; fi
[ -r "$keyring" ] || fail "no $keyring to check Debian's archive signatures"

d="$cache/apt/$suite-arm64-root"
mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/prefs.d" "$d/parts.d"
echo "deb [arch=arm64 signed-by=$keyring] $mirror $suite main" >"$d/sources.list"
: >"$d/status"
opt=(-o "Dir::Etc::sourcelist=$d/sources.list" -o "Dir::Etc::sourceparts=$d/parts.d" -o "Dir::State::lists=$d/lists"
     -o "Dir::Cache=$d/cache" -o "Dir::Etc::preferencesparts=$d/prefs.d" -o "Dir::State::status=$d/status"
     -o APT::Architecture=arm64 -o APT::Architectures=arm64)
echo "qemu-arm64-root: fetching openjdk-25 and its closure for arm64 ($suite) into $root" >&2
# apt-get update exits 0 on some fetch failures: its "Failed to fetch" warnings count as failures here.
if ! apt-get "${opt[@]}" update -qq >"$d/update.log" 2>&1 || grep -q -E '^(E: |W: (Failed to fetch|Some index files failed))' "$d/update.log"; then
  fail "apt-get update of $suite failed: $(grep -m1 -E '^(E: |W: (Failed to fetch|Some index files failed))' "$d/update.log" || tail -n 1 "$d/update.log")"
fi
# Every package the list depends on, recursively; virtual names (<...>) resolve through their providers,
# which the recursion lists too. Alternatives are all taken: unpacking one more library costs nothing.
mapfile -t closure < <(apt-cache "${opt[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances $packages 2>/dev/null | grep -v '^ ' | grep -v '^<' | sort -u)
[ "${#closure[@]}" -gt 10 ] || fail "could not resolve the dependencies of $packages in $suite"
work="$cache/arm64-root.tmp"
rm -rf "$work"; mkdir -p "$work/deb" "$work/root/usr/bin" "$work/root/usr/sbin" "$work/root/usr/lib"
(cd "$work/deb" && apt-get "${opt[@]}" download "${closure[@]/%/:arm64}" >"$work/download.log" 2>&1) \
  || fail "apt-get download of ${#closure[@]} packages failed: $(grep -m1 -E '^E:' "$work/download.log")"
# trixie is merged-/usr: the top-level directories are links into /usr before anything is unpacked.
for l in bin sbin lib; do ln -s "usr/$l" "$work/root/$l"; done
for deb in "$work"/deb/*.deb; do dpkg-deb -x "$deb" "$work/root" || fail "dpkg-deb -x $deb failed"; done
[ -x "$work/root$java" ] || fail "the unpacked root has no $java"
mkdir -p "$work/root/proc" "$work/root/sys" "$work/root/dev" "$work/root/tmp" "$work/root/run" "$work/root/root" \
  "$work/root/var/tmp" "$work/root/etc"
chmod 1777 "$work/root/tmp" "$work/root/var/tmp"
[ -f "$work/root/etc/passwd" ] || printf 'root:x:0:0:root:/root:/bin/bash\n' >"$work/root/etc/passwd"
[ -f "$work/root/etc/group" ] || printf 'root:x:0:\n' >"$work/root/etc/group"
echo "$stamp" >"$work/root/.tk4j-root"
echo "${#closure[@]} packages: ${closure[*]}" >"$work/root/.tk4j-packages"
rm -rf "$root"
mv "$work/root" "$root"
rm -rf "$work"
echo "$root"
