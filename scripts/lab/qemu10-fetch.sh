#!/usr/bin/env bash
# scripts/lab/qemu10-fetch.sh: fetches and unpacks, once, QEMU 10.0 from bookworm-backports (the first QEMU with
# `-device vmclock`) into a private root, and prints that root ($TK4J_LAB_CACHE/qemu10/root).
#
# A PRIVATE apt configuration (its own sources.list, lists and cache under $TK4J_LAB_CACHE/qemu10/apt): `apt-get
# update`, a simulated install against this host's dpkg status to learn which packages (QEMU 10's and the
# libraries this host lacks) are missing, `apt-get download` of those, `dpkg-deb -x` into the root. Nothing is
# installed, /etc/apt and the host's package state are never touched. The root also gets a `fw` folder for
# QEMU's -L (QEMU's own firmware, seabios 1.16.3, which QEMU 10 needs, and the ipxe ROMs) and `env`, which sets
# LD_LIBRARY_PATH and QEMU_MODULE_DIR for the unpacked binary.
# Exit: 0 fetched or cached; 1 it could not be fetched (the reason on stderr).
set -euo pipefail
cache="${TK4J_LAB_CACHE:-$HOME/.cache/timekeeping4j/lab}/qemu10"
# The Debian archive this machine's apt uses (TK4J_LAB_DEBIAN_MIRROR overrides it): debian-mirror.sh.
. "$(dirname "${BASH_SOURCE[0]}")/debian-mirror.sh"
mirror="$(debian_mirror)"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
root="$cache/root"
fail() { echo "qemu10-fetch: $*" >&2; exit 1; }
if [ -x "$root/usr/bin/qemu-system-x86_64" ] && [ -f "$root/env" ]; then echo "$root"; exit 0; fi
[ -r "$keyring" ] || fail "no $keyring to check Debian's archive signatures"

a="$cache/apt"
mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/prefs.d" "$a/parts.d"
for s in bookworm bookworm-updates bookworm-backports; do
  echo "deb [signed-by=$keyring] $mirror $s main"
done >"$a/sources.list"
opt=(-o "Dir::Etc::sourcelist=$a/sources.list" -o "Dir::Etc::sourceparts=$a/parts.d" -o "Dir::State::lists=$a/lists"
     -o "Dir::Cache=$a/cache" -o "Dir::Etc::preferencesparts=$a/prefs.d")
apt-get "${opt[@]}" update -qq >"$cache/update.log" 2>&1 || fail "apt-get update failed: $(tail -n 1 "$cache/update.log")"
# What an install would add to this host (simulated: nothing is changed), QEMU 10 from backports.
apt-get "${opt[@]}" -s -t bookworm-backports install --no-install-recommends qemu-system-x86 qemu-utils seabios \
  >"$cache/simulate.log" 2>&1 || fail "the simulated install failed: $(tail -n 1 "$cache/simulate.log")"
mapfile -t pkgs < <(sed -n 's/^Inst \([^ ]*\) \(\[[^]]*\] \)\?(\([^ ]*\) .*/\1=\3/p' "$cache/simulate.log" \
                    | grep -v '^qemu-user')
[ "${#pkgs[@]}" -gt 0 ] || fail "nothing to fetch? $(tail -n 3 "$cache/simulate.log")"
rm -rf "$cache/debs" "$root.new"; mkdir -p "$cache/debs" "$root.new"
(cd "$cache/debs" && apt-get "${opt[@]}" download "${pkgs[@]}" >"$cache/download.log" 2>&1) \
  || fail "apt-get download failed: $(tail -n 1 "$cache/download.log")"
for d in "$cache"/debs/*.deb; do dpkg-deb -x "$d" "$root.new" || fail "dpkg-deb -x $d failed"; done
mkdir -p "$root.new/fw"
for d in usr/share/qemu usr/share/seabios usr/lib/ipxe/qemu; do
  [ -d "$root.new/$d" ] && for f in "$root.new/$d"/*; do ln -sf "${f#$root.new/}" "$root.new/fw/" 2>/dev/null || true; done
done
# The links above are relative to the root; make them absolute to the final root.
for f in "$root.new"/fw/*; do ln -sfn "$root/$(readlink "$f")" "$f"; done
cat >"$root.new/env" <<EOF
export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export QEMU_MODULE_DIR="$root/usr/lib/x86_64-linux-gnu/qemu"
EOF
rm -rf "$root"; mv "$root.new" "$root"
. "$root/env"
# Ask for the one device: `-device help` loads every module QEMU knows of, and where this root lacks one (the
# OpenGL display modules are a package of their own) QEMU looks in the host's module folder, finds the host QEMU's
# (7.2 here) and exits "Only modules from the same build can be loaded" before it lists anything.
"$root/usr/bin/qemu-system-x86_64" -device vmclock,help >/dev/null 2>&1 \
  || fail "the unpacked QEMU has no vmclock device: $("$root/usr/bin/qemu-system-x86_64" --version 2>&1 | head -n 1)"
echo "$root"
