#!/usr/bin/env bash
# scripts/lab/criu-fetch.sh: fetches and unpacks, once, CRIU 4.x from Debian sid into a private root, and prints
# the path of a wrapper that runs it ($TK4J_LAB_CACHE/criu/root/criu ARGS...).
#
# Why sid's: bookworm's criu 3.17 fails `criu check` on kernels that split [vvar] and [vvar_vclock] (6.13+:
# "vdso: Failed to fill self vdso symtable"); CRIU 4.x knows the new layout. sid's criu needs sid's glibc, so it
# does not run against this host's libraries: the whole dependency closure (criu and every package it depends on,
# glibc among them, about 26 .debs, 8 MB) is downloaded and unpacked with `dpkg-deb -x`, and criu runs through the
# root's own loader (`ROOT/<ld.so> --library-path ROOT/usr/lib/<triplet> ROOT/usr/sbin/criu`).
#
# A PRIVATE apt configuration (its own sources.list, lists and cache under $TK4J_LAB_CACHE/criu/apt, Debian's
# archive the host's apt uses: debian-mirror.sh): `apt-get update`, `apt-cache depends --recurse` for the closure,
# `apt-get download`. Nothing is installed; /etc/apt and the host's package state are never touched.
# Exit: 0 fetched or cached; 1 it could not be fetched or does not run (the reason on stderr).
set -euo pipefail
cache="${TK4J_LAB_CACHE:-$HOME/.cache/timekeeping4j/lab}/criu"
. "$(dirname "${BASH_SOURCE[0]}")/debian-mirror.sh"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
root="$cache/root"
fail() { echo "criu-fetch: $*" >&2; exit 1; }
runs() { [ -x "$1/criu" ] && "$1/criu" --version 2>/dev/null | grep -q '^Version: [4-9]\.'; }
if runs "$root"; then echo "$root/criu"; exit 0; fi

command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 \
  || fail "needs apt-get and dpkg-deb (a Debian host) to fetch sid's criu"
case "$(dpkg --print-architecture)" in
  amd64) loader=usr/lib64/ld-linux-x86-64.so.2; triplet=x86_64-linux-gnu ;;
  arm64) loader=usr/lib/ld-linux-aarch64.so.1; triplet=aarch64-linux-gnu ;;
  *) fail "no recipe for $(dpkg --print-architecture): criu runs through its unpacked root's loader, known for amd64 and arm64" ;;
esac
[ -r "$keyring" ] || fail "no $keyring to check Debian's archive signatures"
mirror="$(debian_mirror)"

a="$cache/apt"
mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/prefs.d" "$a/parts.d"
echo "deb [signed-by=$keyring] $mirror sid main" >"$a/sources.list"
opt=(-o "Dir::Etc::sourcelist=$a/sources.list" -o "Dir::Etc::sourceparts=$a/parts.d" -o "Dir::State::lists=$a/lists"
     -o "Dir::Cache=$a/cache" -o "Dir::Etc::preferencesparts=$a/prefs.d" -o Debug::NoLocking=1)
apt-get "${opt[@]}" update -qq >"$cache/update.log" 2>&1 \
  || fail "apt-get update of the private sid configuration failed ($mirror): $(tail -n 1 "$cache/update.log")"
ls "$a"/lists/*_sid_main_binary-*_Packages* >/dev/null 2>&1 \
  || fail "apt-get update fetched no sid package list from $mirror: $(grep -m 1 -E '^(W|E):' "$cache/update.log")"
# The closure: every package criu depends on, recursively (no recommends or suggests); virtual names (<...>) are
# provided by a real package that is also listed.
apt-cache "${opt[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
  --no-enhances criu >"$cache/depends.log" 2>&1 || fail "apt-cache depends criu failed: $(tail -n 1 "$cache/depends.log")"
mapfile -t pkgs < <(grep -v '^[ <]' "$cache/depends.log" | sort -u)
printf '%s\n' "${pkgs[@]}" | grep -qx criu || fail "sid has no criu? $(head -n 3 "$cache/depends.log")"
rm -rf "$cache/debs" "$root.new"; mkdir -p "$cache/debs" "$root.new"
(cd "$cache/debs" && apt-get "${opt[@]}" download "${pkgs[@]}" >"$cache/download.log" 2>&1) \
  || fail "apt-get download of criu's ${#pkgs[@]} packages failed: $(grep -v '^W:' "$cache/download.log" | tail -n 1)"
for d in "$cache"/debs/*.deb; do dpkg-deb -x "$d" "$root.new" || fail "dpkg-deb -x $d failed"; done
[ -x "$root.new/$loader" ] || fail "the unpacked closure has no loader $loader (is libc6 in it?)"
cat >"$root.new/criu" <<EOF
#!/bin/sh
# sid's criu, run by its own root's loader and libraries (written by scripts/lab/criu-fetch.sh)
exec "$root/$loader" --library-path "$root/usr/lib/$triplet:$root/lib/$triplet" "$root/usr/sbin/criu" "\$@"
EOF
chmod +x "$root.new/criu"
rm -rf "$root"; mv "$root.new" "$root"
rm -rf "$cache/debs"
runs "$root" || fail "the unpacked criu does not run: $("$root/criu" --version 2>&1 | tail -n 1)"
echo "$root/criu"
