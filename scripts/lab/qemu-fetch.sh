#!/usr/bin/env bash
# scripts/lab/qemu-fetch.sh NAME: fetches and unpacks the stock Debian kernel the QEMU lab calls NAME, once
# (or, for NAME busybox-amd64 / busybox-arm64, trixie's busybox-static binary for the initrds).
#
# Prints the unpacked kernel's folder ($TK4J_LAB_CACHE/qemu/kernels/NAME: vmlinuz, modules/KVER/, config,
# and VERSION naming the package, its version, suite and KVER). The kernel comes from Debian through a PRIVATE apt
# configuration (its own sources.list, lists and cache under $TK4J_LAB_CACHE/qemu/apt/SUITE): `apt-get
# update`, `apt-get download`, `dpkg-deb -x`; /etc/apt and the host's package state are never touched, and
# nothing is installed. The generic flavour (amd64, arm64), not cloud: the cloud kernels lack 9p.
# Exit: 0 fetched or cached; 1 the kernel could not be fetched (the reason on stderr); 2 unknown NAME.
set -euo pipefail
cache="${TK4J_LAB_CACHE:-$HOME/.cache/timekeeping4j/lab}/qemu"
# The Debian archive this machine's apt uses (TK4J_LAB_DEBIAN_MIRROR overrides it): debian-mirror.sh.
. "$(dirname "${BASH_SOURCE[0]}")/debian-mirror.sh"
mirror="$(debian_mirror)"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

fail() { echo "qemu-fetch: $*" >&2; exit 1; }

# NAME -> "arch suite..." : the suites are tried in order, the first that has the meta package wins.
case "${1:-}" in
  x86-6.1)    arch=amd64; suites="bookworm" ;;
  x86-6.12)   arch=amd64; suites="trixie" ;;
  x86-7.x)    arch=amd64; suites="trixie-backports sid" ;;
  arm64-6.12) arch=arm64; suites="trixie" ;;
  arm64-7.x)  arch=arm64; suites="trixie-backports sid" ;;
  busybox-amd64|busybox-arm64) arch="${1#busybox-}"; suites="trixie" ;;
  *) echo "qemu-fetch: unknown kernel '${1:-}'; one of x86-6.1, x86-6.12, x86-7.x, arm64-6.12, arm64-7.x" >&2; exit 2 ;;
esac
name="$1"
dest="$cache/kernels/$name"
if [ -f "$dest/VERSION" ]; then echo "$dest"; exit 0; fi
[ -r "$keyring" ] || fail "no $keyring to check Debian's archive signatures (apt-get install debian-archive-keyring)"

# One private apt state per suite: update, resolve linux-image-ARCH to its versioned image, download it.
apt_for() { # suite -> prints the -o options of its private configuration, creating it
  local s="$1" d="$cache/apt/$1"
  mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/prefs.d" "$d/parts.d"
  echo "deb [arch=amd64,arm64 signed-by=$keyring] $mirror $s main" >"$d/sources.list"
  printf '%s\n' -o "Dir::Etc::sourcelist=$d/sources.list" -o "Dir::Etc::sourceparts=$d/parts.d" \
    -o "Dir::State::lists=$d/lists" -o "Dir::Cache=$d/cache" -o "Dir::Etc::preferencesparts=$d/prefs.d" \
    -o "Dir::State::status=$d/status" -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
}

work="$cache/kernels/$name.tmp"
rm -rf "$work"; mkdir -p "$work/deb"
why=""
for s in $suites; do
  mapfile -t opt < <(apt_for "$s")
  : >"$cache/apt/$s/status"
  # apt-get update exits 0 on some fetch failures: its "Failed to fetch" warnings count as failures here.
  if ! apt-get "${opt[@]}" update -qq >"$work/update-$s.log" 2>&1 || grep -q -E '^(E: |W: (Failed to fetch|Some index files failed))' "$work/update-$s.log"; then
    why="$why; apt-get update of $s failed: $(grep -m1 -E '^(E: |W: (Failed to fetch|Some index files failed))' "$work/update-$s.log" || tail -n 1 "$work/update-$s.log")"; continue
  fi
  case "$name" in busybox-*)   # a static busybox for the initrd: just the binary
    (cd "$work/deb" && apt-get "${opt[@]}" download "busybox-static:$arch" >"$work/download.log" 2>&1) \
      || { why="$why; apt-get download busybox-static from $s failed: $(tail -n 1 "$work/download.log")"; continue; }
    dpkg-deb -x "$work"/deb/busybox-static_*.deb "$work/root"
    mkdir -p "$dest.new"; mv "$work/root/usr/bin/busybox" "$dest.new/busybox" 2>/dev/null \
      || mv "$work/root/bin/busybox" "$dest.new/busybox"
    echo "busybox-static $(dpkg-deb -f "$work"/deb/busybox-static_*.deb Version) ($s, $arch)" >"$dest.new/VERSION"
    rm -rf "$dest" "$work"; mv "$dest.new" "$dest"; echo "$dest"; exit 0 ;;
  esac
  image="$(apt-cache "${opt[@]}" depends "linux-image-$arch" 2>/dev/null \
           | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\).*/\1/p' | head -n 1 || true)"
  if [ -z "$image" ]; then why="$why; $s has no linux-image-$arch"; continue; fi
  # Newer kernels split the image package: linux-binary-* (vmlinuz), linux-modules-* (modules) and
  # linux-base-* (modules.builtin, config).
  pkgs=("$image:$arch")
  for p in $(apt-cache "${opt[@]}" depends "$image" 2>/dev/null \
             | sed -n 's/^ *Depends: \(linux-\(binary\|modules\|base\)-[0-9][^ ]*\).*/\1/p' | sort -u || true); do
    pkgs+=("$p:$arch")
  done
  if ! (cd "$work/deb" && apt-get "${opt[@]}" download "${pkgs[@]}" >"$work/download.log" 2>&1); then
    why="$why; apt-get download ${pkgs[*]} from $s failed: $(tail -n 1 "$work/download.log")"; continue
  fi
  for deb in "$work"/deb/*.deb; do dpkg-deb -x "$deb" "$work/root" || fail "dpkg-deb -x $deb failed"; done
  # boot/vmlinuz-KVER, or (split packages) usr/lib/modules/KVER/vmlinuz.
  vmlinuz="$(find "$work/root" \( -path '*/boot/vmlinuz-*' -o -path '*/modules/*/vmlinuz' \) -type f | head -n 1)"
  [ -n "$vmlinuz" ] || fail "${pkgs[*]} hold no vmlinuz"
  case "$vmlinuz" in
    */boot/vmlinuz-*) kver="${vmlinuz##*/vmlinuz-}" ;;
    *) kver="$(basename "$(dirname "$vmlinuz")")" ;;
  esac
  mods=""
  for m in "$work/root/lib/modules/$kver" "$work/root/usr/lib/modules/$kver"; do [ -d "$m" ] && mods="$m"; done
  [ -n "$mods" ] || fail "${pkgs[*]} hold no modules for $kver"
  rm -rf "$dest.new"; mkdir -p "$dest.new/modules"
  mv "$vmlinuz" "$dest.new/vmlinuz"
  mv "$mods" "$dest.new/modules/$kver"
  cfg="$(find "$work/root" \( -name "config-$kver" -o -path "*/modules/$kver/config" \) -type f | head -n 1)"
  [ -n "$cfg" ] && mv "$cfg" "$dest.new/config"
  echo "$image $(dpkg-deb -f "$(ls "$work"/deb/linux-image-*.deb | head -n 1)" Version) ($s) kernel $kver" >"$dest.new/VERSION"
  rm -rf "$dest" "$work"
  mv "$dest.new" "$dest"
  echo "$dest"
  exit 0
done
rm -rf "$work"
fail "no kernel for $name from ${suites// /, }${why}"
