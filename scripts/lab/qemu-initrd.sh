#!/usr/bin/env bash
# scripts/lab/qemu-initrd.sh KERNEL_DIR BUSYBOX: builds (once) and prints the initrd for a kernel that
# qemu-fetch.sh unpacked: a static busybox, the kernel's own virtio-pci / 9p modules with their dependencies
# (from its modules.dep, decompressed here so busybox's insmod loads them), and an init that mounts the
# shares QEMU exports (root read-only, repo and run writable), chroots into the root to run the run share's
# stage2, and powers off. Cached next to the kernel, keyed by this script's and the inputs' contents.
set -euo pipefail
kdir="$1" busybox="$2"
kver="$(ls "$kdir/modules")"
mdir="$kdir/modules/$kver"
key="$( (cat "$0" "$busybox" "$kdir/VERSION") | sha256sum | cut -c1-12)"
out="$kdir/initrd-$key.cpio.gz"
if [ -s "$out" ]; then echo "$out"; exit 0; fi

work="$(mktemp -d "$kdir/initrd.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/proc" "$work/sys" "$work/dev" "$work/root" "$work/lib/mod"
cp "$busybox" "$work/bin/busybox"

# The modules in load order (each one's dependencies first, read from its own .modinfo "depends=", as the
# packages carry no modules.dep and this host may have no kmod), skipping those built into this kernel.
declare -A seen=() file=()
while read -r p; do b="${p##*/}"; b="${b%%.ko*}"; file[${b//-/_}]="$p"; done \
  < <(cd "$mdir" && find kernel -name '*.ko*' -type f)
unpack() { # module path relative to $mdir -> the plain .ko on stdout
  case "$1" in
    *.ko.xz)  xz -dc "$mdir/$1" ;;
    *.ko.zst) zstd -qdc "$mdir/$1" ;;
    *.ko.gz)  gzip -dc "$mdir/$1" ;;
    *)        cat "$mdir/$1" ;;
  esac
}
: >"$work/modules"
add() { # module name
  local n="${1//-/_}" d
  [ -n "${seen[$n]:-}" ] && return 0
  seen[$n]=1
  if [ -z "${file[$n]:-}" ]; then
    grep -q "/${n}\.ko" "$mdir/modules.builtin" 2>/dev/null && return 0
    grep -q "/${1}\.ko" "$mdir/modules.builtin" 2>/dev/null && return 0
    echo "qemu-initrd: $kver has no module $1 (neither loadable nor built in)" >&2; exit 1
  fi
  unpack "${file[$n]}" >"$work/lib/mod/$n.ko"
  for d in $(tr '\0' '\n' <"$work/lib/mod/$n.ko" | sed -n 's/^depends=//p' | head -n 1 | tr ',' ' '); do add "$d"; done
  echo "$n" >>"$work/modules"
}
for want in virtio_pci 9pnet_virtio 9p; do add "$want"; done

cat >"$work/init" <<'EOF'
#!/bin/busybox sh
# The QEMU lab's init (scripts/lab/qemu-initrd.sh): modules, shares, the run's stage2, power off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules); do insmod "/lib/mod/$m.ko" || echo "lab init: insmod $m failed"; done
for w in $(cat /proc/cmdline); do
  case "$w" in tk4j.run=*) run="${w#tk4j.run=}" ;; tk4j.repo=*) repo="${w#tk4j.repo=}" ;; esac
done
o=trans=virtio,version=9p2000.L,msize=262144
# The root is read-only and nothing changes it during a run: cache=loose lets the guest keep its pages
# (the JVM's modules image and jars are read through the page cache, not one 9p request per read).
mount -t 9p -o "$o,ro,cache=loose" root /root || { echo "lab init: cannot mount the root share"; poweroff -f; }
mount -t proc proc /root/proc
mount -t sysfs sysfs /root/sys
mount -t devtmpfs devtmpfs /root/dev
mkdir -p /root/dev/pts /root/dev/shm
mount -t devpts devpts /root/dev/pts
mount -t tmpfs tmpfs /root/dev/shm
mount -t tmpfs tmpfs /root/tmp
mount -t tmpfs tmpfs /root/run
mount -t tmpfs tmpfs /root/var/tmp 2>/dev/null
mount -t debugfs debugfs /root/sys/kernel/debug 2>/dev/null
# After the tmpfs mounts, so that a repository or run folder under /tmp is still the shared one.
mkdir -p "/root$repo" "/root$run" 2>/dev/null
mount -t 9p -o "$o" repo "/root$repo" || echo "lab init: cannot mount the repository share at $repo"
mount -t 9p -o "$o" run "/root$run" || { echo "lab init: cannot mount the run share"; poweroff -f; }
chroot /root /bin/bash "$run/stage2"
sync
poweroff -f
EOF
chmod +x "$work/init"
hostbb="$("$(dirname "$0")/qemu-fetch.sh" busybox-amd64)/busybox"   # the packer runs on this host
(cd "$work" && find . | sed 's#^\./##; /^\.$/d' | "$hostbb" cpio -o -H newc 2>/dev/null) | gzip -1 >"$out.tmp"
rm -f "$kdir"/initrd-*.cpio.gz   # earlier versions
mv "$out.tmp" "$out"
echo "$out"
