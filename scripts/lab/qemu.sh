#!/usr/bin/env bash
# scripts/lab/qemu.sh --kernel NAME [--timeout SECONDS] CMD...: runs CMD as root inside a stock Debian kernel
# booted under QEMU's TCG emulation (no KVM), with a real [vvar], and returns CMD's exit code.
#
# NAME: x86-6.1 (bookworm), x86-6.12 (trixie), x86-7.x (trixie-backports, else sid), arm64-6.12 (trixie),
# arm64-7.x. `--prepare` sets NAME up without running anything; `--list` prints the names.
# The guest sees this machine's / read-only over virtio-9p (x86; on arm64 an arm64 Debian root with
# openjdk-25, see qemu-arm64-root.sh) and the repository holding this script writable at the same path; CMD
# runs as root in the caller's working directory (the repository where the guest lacks it) with the guest's
# own clock (adjtimex, clock_settime,
# leap flags and clocksource changes stay inside it). CMD's output is printed; TK4J_* variables are passed in,
# TK4J_LAB_KERNEL=NAME and TK4J_LAB_GUEST=qemu are set, and the kernel command line carries tk4j_lab=1 (what
# the lab-only tests check before they change the clock).
#
# Everything is fetched on first use and cached in $TK4J_LAB_CACHE (default ~/.cache/timekeeping4j/lab):
# qemu-system-x86 / qemu-system-arm through the host's apt (the only packages installed on the host), the
# kernel and a static busybox through a private apt configuration (qemu-fetch.sh; /etc/apt is never
# touched), and an initrd per kernel (busybox, an init, the kernel's own virtio/9p modules).
# Emulation facts that shape the command line: multi-threaded TCG crashes the JVM (code patched by one JIT
# thread while another vCPU runs it), so -accel tcg,thread=single; TCG never advertises an invariant TSC,
# so +invtsc is forced (rdtsc under TCG is the host's invariant TSC), and tsc=reliable keeps the guest's
# clocksource watchdog from dropping tsc under emulation's jitter.
# Exit: CMD's exit code; 2 bad usage; 124 the guest ran past --timeout (default 1200 s); 125 the guest ended
# without CMD's exit code (a panic, QEMU failing); 126 the lab cannot be set up here (the reason is printed).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${TK4J_LAB_CACHE:-$HOME/.cache/timekeeping4j/lab}"
qcache="$cache/qemu"

say() { printf 'lab-qemu: %s\n' "$*" >&2; }
cannot() { say "cannot set up the QEMU lab: $*"; exit 126; }
usage() { say "$*"; say "usage: scripts/lab/qemu.sh --kernel NAME [--timeout SECONDS] [--] CMD... | --prepare NAME | --list"; exit 2; }

kernels="x86-6.1 x86-6.12 x86-7.x arm64-6.12 arm64-7.x"
name="" timeout=1200 prepare=""
while [ $# -gt 0 ]; do
  case "$1" in
    --kernel) [ $# -ge 2 ] || usage "--kernel needs a NAME"; name="$2"; shift 2 ;;
    --kernel=*) name="${1#--kernel=}"; shift ;;
    --timeout) [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]] || usage "--timeout needs whole seconds"; timeout="$2"; shift 2 ;;
    --prepare) [ $# -ge 2 ] || usage "--prepare needs a NAME"; name="$2"; prepare=1; shift 2 ;;
    --list) echo "$kernels"; exit 0 ;;
    --) shift; break ;;
    -*) usage "unknown option $1" ;;
    *) break ;;
  esac
done
[ -n "$name" ] || usage "no --kernel NAME given (one of: $kernels)"
case " $kernels " in *" $name "*) ;; *) usage "unknown kernel '$name'; one of: $kernels" ;; esac
[ -n "$prepare" ] || [ $# -gt 0 ] || usage "no CMD given"
[ "$(id -u)" = 0 ] || cannot "needs root (9p shares of / and the host's apt); run it as root"
[ "$(uname -m)" = x86_64 ] || cannot "the lab's QEMU set-up is written for an x86_64 host; this is $(uname -m)"

arch="${name%%-*}"
if [ "$arch" = x86 ]; then
  qemu=qemu-system-x86_64 qpkg=qemu-system-x86 darch=amd64 console=ttyS0
else
  qemu=qemu-system-aarch64 qpkg=qemu-system-arm darch=arm64 console=ttyAMA0
fi

# --- QEMU from the host's own Debian suite (the one install on the host) ---
if ! command -v "$qemu" >/dev/null 2>&1; then
  say "installing $qpkg (apt-get, the host's own suite)"
  apt-get update -qq -o DPkg::Lock::Timeout=600 >"$cache.apt.log" 2>&1 || { mkdir -p "$cache"; cannot "apt-get update failed: $(tail -n 1 "$cache.apt.log")"; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 \
    "$qpkg" >>"$cache.apt.log" 2>&1 || cannot "apt-get install $qpkg failed: $(tail -n 1 "$cache.apt.log")"
  command -v "$qemu" >/dev/null 2>&1 || cannot "$qpkg installed but no $qemu on PATH"
fi
mkdir -p "$qcache"

# --- kernel, busybox, root, initrd ---
kdir="$("$here/qemu-fetch.sh" "$name")" || cannot "the $name kernel could not be fetched (see above)"
bdir="$("$here/qemu-fetch.sh" "busybox-$darch")" || cannot "busybox-static ($darch) could not be fetched (see above)"
kver="$(ls "$kdir/modules")"
if [ "$arch" = x86 ]; then
  root=/
else
  root="$("$here/qemu-arm64-root.sh")" || cannot "the arm64 root could not be built (see above)"
fi
initrd="$("$here/qemu-initrd.sh" "$kdir" "$bdir/busybox")" || cannot "the initrd for $name could not be built (see above)"
if [ -n "$prepare" ]; then
  say "$name ready: $(cat "$kdir/VERSION"); initrd $initrd; root $root"
  exit 0
fi

# --- one run: a writable share with the command, the guest's stage 2, and CMD's exit code ---
mkdir -p "$qcache/runs"
run="$(mktemp -d "$qcache/runs/run.XXXXXX")"
trap 'rm -rf "$run"' EXIT
cwd="$PWD"
{
  echo '#!/bin/bash'
  echo '# Generated by scripts/lab/qemu.sh: runs in the guest, chrooted into the shared root.'
  echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb'
  # The arm64 root is unpacked, not configured: no alternatives, so java is put on PATH by its folder.
  [ "$arch" = x86 ] || echo 'export PATH=/usr/lib/jvm/java-25-openjdk-arm64/bin:$PATH'
  printf 'export TK4J_LAB_KERNEL=%q TK4J_LAB_GUEST=qemu\n' "$name"
  while IFS='=' read -r k _; do
    case "$k" in TK4J_LAB_KERNEL|TK4J_LAB_GUEST|TK4J_LAB_CACHE) ;; TK4J_*) printf 'export %s=%q\n' "$k" "${!k}" ;; esac
  done < <(env)
  printf 'cd %q 2>/dev/null || cd %q\n' "$cwd" "$repo"
  printf '%q ' "$@"; echo
  printf 'echo $? >%q/rc\n' "$run"
} >"$run/stage2"
chmod +x "$run/stage2"
# The arm64 root needs the mount points (it is read-only in the guest); the run's is removed after it.
if [ "$root" != / ]; then
  mkdir -p "$root$repo" "$root$run"
  trap 'rm -rf "$run"; rmdir "$root$run" 2>/dev/null || true' EXIT
fi

args=(-accel tcg,thread=single -smp 2 -m 2G -display none -no-reboot -nic none -monitor none
      -serial stdio -kernel "$kdir/vmlinuz" -initrd "$initrd"
      -virtfs "local,path=$root,mount_tag=root,security_model=none,readonly=on,multidevs=remap"
      -virtfs "local,path=$repo,mount_tag=repo,security_model=none,multidevs=remap"
      -virtfs "local,path=$run,mount_tag=run,security_model=none,multidevs=remap")
append="console=$console quiet loglevel=3 panic=-1 rdinit=/init tk4j_lab=1 tk4j.run=$run tk4j.repo=$repo"
if [ "$arch" = x86 ]; then
  args+=(-cpu max,+invtsc,x-force-features=on)
  append="$append tsc=reliable"
else
  args+=(-M virt -cpu max)
fi
# Besides CMD's own output, the console carries the kernel's warnings (loglevel 3) and QEMU's notes on
# the forced invtsc; carriage returns from the serial line are dropped.
set +e
timeout -k 10 "$timeout" "$qemu" "${args[@]}" -append "$append" </dev/null 2>&1 \
  | grep --line-buffered -v -e "TCG doesn't support requested feature" -e '\] reboot: Power down' | sed -u 's/\r//g'
status=("${PIPESTATUS[@]}")
set -e
if [ "${status[0]}" = 124 ] || [ "${status[0]}" = 137 ]; then
  say "$name: the guest ran past --timeout $timeout s; stopped"
  exit 124
fi
if [ ! -s "$run/rc" ]; then
  say "$name: the guest ended without CMD's exit code (QEMU exit ${status[0]}: a kernel panic, a missing module, or QEMU failing; output above)"
  exit 125
fi
exit "$(cat "$run/rc")"
