#!/usr/bin/env bash
# scripts/lab/uml.sh [--prepare] CMD...: runs CMD as root inside a User-Mode-Linux guest kernel (called by
# scripts/lab.sh, the default kernel there).
#
# The guest's root is this machine's root, read-only (hostfs): the repository, the JDKs and every tool are at
# the same paths inside. Writable inside: /tmp and /run (the guest's own tmpfs), the run folder (below), and
# the folders in TK4J_LAB_RW (colon-separated; default: the repository's target/lab, created if missing).
# CMD runs in the caller's working directory with the caller's PATH/JAVA_HOME, its output printed, its exit
# code returned. The clocks CMD steers are the guest's own: adjtimex, clock_settime and leap flags inside never
# reach this machine's clock.
#
# The kernel: Debian sid's linux-source-7.2 (fetched with a private apt configuration: /etc/apt is never
# changed), configured for the time drivers (pps_ktimer, netdevsim's mock PTP clock, AUX clocks, time
# namespaces, hostfs), built once (niced) and cached in $TK4J_LAB_CACHE/uml-VERSION/linux (TK4J_LAB_CACHE
# defaults to $TK4J_CACHE/lab, TK4J_CACHE to ~/.cache/timekeeping4j). Host packages it needs (build-essential bc flex bison m4, busybox-static) are
# installed from this machine's own suites when missing.
# --prepare: install, fetch and build only (no guest boot).
# Environment: TK4J_LAB_CACHE / TK4J_CACHE, TK4J_LAB_RW, TK4J_LAB_APPEND (extra kernel arguments, e.g. "highres=off nohz=off",
# which the jiffies clocksource needs), TK4J_LAB_MEM (guest memory, default 2G).
# Exit status: CMD's; 125 when the guest cannot be set up or booted (with the reason on stderr).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# The Debian archive this machine's apt uses (TK4J_LAB_DEBIAN_MIRROR overrides it).
. "$here/scripts/lab/debian-mirror.sh"
cache="${TK4J_LAB_CACHE:-${TK4J_CACHE:-$HOME/.cache/timekeeping4j}/lab}"   # TK4J_LAB_CACHE: as scripts/lab/qemu.sh
source_pkg=linux-source-7.2
host_pkgs="build-essential bc flex bison m4 busybox-static"
# The kernel options on top of `make ARCH=um defconfig`; change the list and every cached kernel is rebuilt.
enable="POSIX_AUX_CLOCKS PPS PPS_CLIENT_KTIMER TIME_NS HOSTFS DEVTMPFS DEVTMPFS_MOUNT TMPFS PTP_1588_CLOCK
  PTP_1588_CLOCK_MOCK NETDEVSIM DEBUG_FS"
# Off: what the lab does not use (block devices, disk file systems, wireless), to shorten the build.
disable="MODULES BLK_DEV_UBD DEBUG_INFO DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT DEBUG_INFO_DWARF5 DEBUG_INFO_DWARF4
  EXT4_FS QUOTA ISO9660_FS BLK_DEV_LOOP AUTOFS_FS WIRELESS INET_DIAG MAGIC_SYSRQ"
stamp="$(printf '%s|%s|v2' "$enable" "$disable" | tr -s ' \n' ' ')"

log() { printf 'lab(uml): %s\n' "$*" >&2; }
fail() { printf 'lab(uml): FAILED to set up the guest: %s\n' "$*" >&2; exit 125; }
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f s", b - a }'; }

# The cached kernel whose configuration stamp is the current one (any version), or nothing.
cached_kernel() {
  local d
  for d in "$cache"/uml-*/; do
    [ -x "$d/linux" ] && [ "$(cat "$d/stamp" 2>/dev/null)" = "$stamp" ] && { echo "$d/linux"; return 0; }
  done
  return 0
}

install_host_packages() {
  local missing="" p
  for p in $host_pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  [ "$(id -u)" = 0 ] || fail "packages$missing are missing and installing them needs root"
  log "installing$missing (apt-get, this machine's own suites)"
  apt-get update -qq -o DPkg::Lock::Timeout=600 >/dev/null 2>&1 || fail "apt-get update failed (no package mirror reachable?)"
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 $missing >/dev/null \
    || fail "apt-get install$missing failed"
}

# Debian sid's kernel source, downloaded (never installed) through a private apt configuration.
fetch_source() {
  local apt="$cache/apt-sid" deb
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/prefs" "$apt/download"
  echo "deb $(debian_mirror) sid main" > "$apt/sources.list"
  local opts=(-o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts=- -o Dir::State::lists="$apt/lists"
    -o Dir::Cache="$apt/cache" -o Dir::Etc::preferencesparts="$apt/prefs" -o Debug::NoLocking=1)
  apt-get "${opts[@]}" update -qq >/dev/null 2>&1 || fail "apt-get update of the private sid configuration ($apt) failed"
  (cd "$apt/download" && rm -f ./*.deb && apt-get "${opts[@]}" download -qq "$source_pkg" >/dev/null 2>&1) \
    || fail "apt-get download $source_pkg from sid failed"
  deb=$(ls "$apt/download"/"$source_pkg"_*.deb 2>/dev/null | head -1)
  [ -n "$deb" ] || fail "no $source_pkg .deb after apt-get download"
  echo "$deb"
}

build_kernel() {
  local t0 deb version dir src tar
  t0=$(now)
  install_host_packages
  deb=$(fetch_source)
  version=$(dpkg-deb -f "$deb" Version)     # e.g. 7.2.13-1
  version=${version%%-*}
  dir="$cache/uml-$version"
  local build="$cache/build"      # the cached kernel is replaced only once the new one is built
  src="$build/src"
  log "building a UML kernel from $source_pkg $version into $dir (about 7 minutes on 2 idle cores, once)"
  rm -rf "$build"; mkdir -p "$src"
  dpkg-deb -x "$deb" "$build/deb" || fail "dpkg-deb -x $deb failed"
  tar=$(ls "$build"/deb/usr/src/linux-source-*.tar.* | head -1)
  tar -xf "$tar" -C "$src" --strip-components=1 || fail "unpacking $tar failed"
  rm -rf "$build/deb" "$deb"
  (
    cd "$src"
    make -s ARCH=um defconfig >/dev/null
    local o
    for o in $enable; do scripts/config --enable "$o"; done
    for o in $disable; do scripts/config --disable "$o"; done
    make -s ARCH=um olddefconfig >/dev/null
    for o in $enable; do
      grep -q "^CONFIG_$o=y" .config || { echo "CONFIG_$o did not stay enabled (a missing dependency?)" >&2; exit 1; }
    done
    nice -n 10 make -s ARCH=um -j"$(( $(nproc) + 1 ))" linux >"$build/build.log" 2>&1 \
      || { tail -30 "$build/build.log" >&2; exit 1; }
  ) || fail "the kernel build failed (log: $build/build.log)"
  rm -rf "$dir"; mkdir -p "$dir"
  cp "$src/.config" "$dir/config" && cp "$build/build.log" "$dir/build.log" && cp "$src/linux" "$dir/linux.tmp" \
    || fail "copying the kernel into $dir failed"
  rm -rf "$build"
  echo "$stamp" > "$dir/stamp"
  mv "$dir/linux.tmp" "$dir/linux"
  log "kernel built in $(took "$t0"): $dir/linux"
}

kernel=$(cached_kernel)
if [ -z "$kernel" ]; then
  mkdir -p "$cache"
  exec 9>"$cache/.build.lock"
  flock 9                       # one build at a time; a second caller waits and then uses it
  kernel=$(cached_kernel)
  [ -n "$kernel" ] || { build_kernel; kernel=$(cached_kernel); }
  exec 9>&-
fi
[ -n "$kernel" ] || fail "no kernel after the build"
command -v busybox >/dev/null || install_host_packages

if [ "${1:-}" = --prepare ]; then echo "$kernel"; exit 0; fi
[ $# -gt 0 ] || { echo "usage: scripts/lab.sh [--kernel NAME] CMD..." >&2; exit 2; }
[ "$(id -u)" = 0 ] || fail "run it as root (the guest's root is this machine's root, read-only)"

run=$(mktemp -d /tmp/tk4j-lab.XXXXXX)
trap 'rm -rf "$run"' EXIT
rw="${TK4J_LAB_RW-$here/target/lab}"
IFS=: read -r -a rw_dirs <<< "$rw"
for d in "${rw_dirs[@]}"; do [ -n "$d" ] && mkdir -p "$d"; done

# The command, with the caller's working directory and environment, as a script the guest's init runs.
{
  echo "cd $(printf %q "$PWD") || exit 126"
  export -p | grep -Ev '^declare -x (BASH_|SHLVL=|OLDPWD=|PWD=|TERM=|HOSTNAME=|_=)' || true
  printf '%q ' "$@"; echo
} > "$run/cmd.sh"

{
  echo '#!/bin/sh'
  echo 'PATH=/usr/sbin:/usr/bin:/sbin:/bin; export PATH'
  echo 'mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t tmpfs tmpfs /tmp; mount -t tmpfs tmpfs /run'
  echo 'mount -t devtmpfs dev /dev 2>/dev/null; mount -t debugfs debugfs /sys/kernel/debug'
  echo 'mkdir -p /dev/pts /dev/shm; mount -t devpts devpts /dev/pts; mount -t tmpfs tmpfs /dev/shm'
  # hostfs takes the host folder as its whole option string.
  printf 'mkdir -p %q; mount -t hostfs none %q -o %q\n' "$run" "$run" "$run"
  # The guest's /tmp is its own tmpfs: a repository or working directory under the host's /tmp (a CI clone)
  # would vanish under it, so such folders are mounted again from the host (read-only) at their paths.
  for d in "$here" "$PWD"; do
    case "$d" in /tmp/*) printf 'mkdir -p %q; mount -r -t hostfs none %q -o %q\n' "$d" "$d" "$d" ;; esac
  done
  # A writable folder that cannot be mounted ends the run with 125 (init must not exit: the kernel would panic).
  for d in "${rw_dirs[@]}"; do
    [ -n "$d" ] && printf 'mount -t hostfs none %q -o %q || { echo "lab(uml): cannot mount %q writable" >&2; echo 125 > %q; sync; exec busybox poweroff -f; }\n' \
      "$d" "$d" "$d" "$run/rc"
  done
  echo 'hostname tk4j-lab; mkdir -p /tmp/home; HOME=/tmp/home; export HOME'
  printf '/bin/bash %q </dev/console >/dev/console 2>&1\n' "$run/cmd.sh"
  printf 'echo $? > %q\n' "$run/rc"
  echo 'sync; exec busybox poweroff -f'
} > "$run/init.sh"
chmod +x "$run/init.sh"

# con0 on this process's stdout; stdin is not passed (a guest reading it would steal the caller's input).
set +e
tmp=/tmp
[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && tmp=/dev/shm   # the guest's memory file: tmpfs is faster
TMPDIR=$tmp "$kernel" mem="${TK4J_LAB_MEM:-2G}" rootfstype=hostfs hostfs=/ ro init="$run/init.sh" \
  con=null con0=null,fd:1 ssl=null quiet tk4j_lab=1 ${TK4J_LAB_APPEND:-} </dev/null
status=$?
set -e
if [ ! -s "$run/rc" ]; then
  echo "lab(uml): the guest ended without CMD's exit code (kernel exit $status)" >&2
  exit 125
fi
exit "$(cat "$run/rc")"
