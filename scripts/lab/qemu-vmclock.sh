#!/usr/bin/env bash
# scripts/lab/qemu-vmclock.sh [--timeout SECONDS]: the VMClock checks against the real driver.
#
# Boots the x86-7.x kernel (trixie-backports 7.3.4, qemu-fetch.sh) under a private QEMU 10.0 (qemu10-fetch.sh;
# never installed) with `-M q35 -device vmclock`, iomem=relaxed and a qcow2 drive for snapshots. In the guest,
# before ptp_vmclock is loaded, VmClockWriterMain (core test classes) starts filling QEMU's page at 0xfeffb000
# through /dev/mem with moving time (the TSC and CLOCK_TAI once a second, an honest bound, QEMU's marker kept), so
# that the driver also registers its PTP clock. Then: `tk4j vmclock` (decode, the time with its bound), `tk4j phc
# /dev/ptp0`, the PHC at counter speed (PhcFastLabMain: 100,000 FastPtpClock reads, each between two clock_gettime
# reads of the PHC, 0 outside their bound; `tk4j phc --fast`), `tk4j vmclock --watch` in the background, and VmClockLabMain, which maps /dev/vmclock0, reads the
# page's time, checks 2000 PHC reads against the VmClock reads around each, checks that poll() answers POLLHUP,
# writes a ClockBound segment with the page's marker and prints READY. The host then sends `savevm s1` and
# `loadvm s1` through the QEMU monitor; the guest must see the disruption marker move (VmClock.disruptedSince,
# ClockBound.now DISRUPTED, an EventRecorder event recorded before it exported extrapolated=true, a --watch line).
# The served bounds too: before READY the guest asks the writer (/tmp/vmclock-flags) for DISRUPTION_SOON, then
# IMMINENT, then neither, and BoundedClock.system() (over adjtimex, which the guest sets synchronised) and a
# hand-refreshed ServedBounds watching the page must report each through awaitDisruption and disruptionExpected();
# after loadvm, the first read of each is DISRUPTED and unbounded, and the hand-refreshed one serves again once
# its source measured since.
#
# Nothing is shared over 9p (QEMU refuses savevm while a 9p share is mounted): the guest's whole payload - a jlink
# runtime of the JDK that builds this project, its libraries, tk4j.jar and core's test classes - is in the initrd;
# results come back over the serial console. Needs cli/target/tk4j.jar and core/target/test-classes (build them:
# mvn -B -o -q -pl cli -am -DskipTests package && mvn -B -o -q -pl core test-compile).
# Opt-in, not in the suite: TK4J_VMCLOCK_JMH="JMH ARGS" also runs benchmarks/target/benchmarks.jar in the guest after
# the PHC checks, with -p device=/dev/ptp0 (FastPtpClockBenchmark: the counter-speed read, Clocks.nanos(TAI) and the
# PHC's system call in one run, under TCG emulation), and prints its lines (TK4J-JMH); the timeout becomes 3600 s.
# Exit: 0 every check passed; 1 a check failed (the console is printed); 124 timeout; 126 the lab cannot be set up.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${TK4J_LAB_CACHE:-$HOME/.cache/timekeeping4j/lab}"
jmh="${TK4J_VMCLOCK_JMH:-}"
timeout=600
[ -n "$jmh" ] && timeout=3600
[ "${1:-}" = --timeout ] && { timeout="$2"; shift 2; }
say() { printf 'lab-vmclock: %s\n' "$*" >&2; }
cannot() { say "cannot set up: $*"; exit 126; }

[ "$(uname -m)" = x86_64 ] || cannot "x86_64 hosts only (QEMU's vmclock device is x86 PC/q35 only)"
jar="$repo/cli/target/tk4j.jar"
tcls="$repo/core/target/test-classes"
[ -f "$jar" ] && [ -f "$tcls/org/timekeeping4j/device/VmClockLabMain.class" ] \
  || cannot "build first: mvn -B -o -q -pl cli -am -DskipTests package && mvn -B -o -q -pl core test-compile"
bench="$repo/benchmarks/target/benchmarks.jar"
[ -z "$jmh" ] || [ -f "$bench" ] || cannot "TK4J_VMCLOCK_JMH: build first: mvn -B -o -q -pl benchmarks -am -DskipTests package"
jdk=""
for c in "${TK4J_JAVA_HOME:-}" "${JAVA_HOME:-}" /usr/lib/jvm/*; do
  [ -n "$c" ] && [ -x "$c/bin/jlink" ] && grep -q '^JAVA_VERSION="2[5-9]' "$c/release" 2>/dev/null && { jdk="$c"; break; }
done
[ -n "$jdk" ] || cannot "no JDK 25+ with jlink"
q10="$("$here/qemu10-fetch.sh")" || cannot "QEMU 10 could not be fetched (see above)"
kdir="$("$here/qemu-fetch.sh" x86-7.x)" || cannot "the x86-7.x kernel could not be fetched"
bdir="$("$here/qemu-fetch.sh" busybox-amd64)" || cannot "busybox-static could not be fetched"
kver="$(ls "$kdir/modules")"
mdir="$kdir/modules/$kver"

mkdir -p "$cache/vmclock"
work="$(mktemp -d "$cache/vmclock/run.XXXXXX")"
trap 'rm -rf "$work"' EXIT
r="$work/initrd"
mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" "$r/lib/mod" "$r/payload"
cp "$bdir/busybox" "$r/bin/busybox"

# --- the kernel modules: ptp_vmclock and its dependencies (from each module's .modinfo), in load order ---
declare -A seen=() file=()
while read -r p; do b="${p##*/}"; b="${b%%.ko*}"; file[${b//-/_}]="$p"; done < <(cd "$mdir" && find kernel -name '*.ko*' -type f)
: >"$r/modules"
add() {
  local n="${1//-/_}" d
  [ -n "${seen[$n]:-}" ] && return 0
  seen[$n]=1
  [ -n "${file[$n]:-}" ] || return 0 # built in
  case "${file[$n]}" in
    *.ko.xz) xz -dc "$mdir/${file[$n]}" ;; *.ko.zst) zstd -qdc "$mdir/${file[$n]}" ;; *) cat "$mdir/${file[$n]}" ;;
  esac >"$r/lib/mod/$n.ko"
  for d in $(tr '\0' '\n' <"$r/lib/mod/$n.ko" | sed -n 's/^depends=//p' | head -n 1 | tr ',' ' '); do add "$d"; done
  echo "$n" >>"$r/modules"
}
add ptp_vmclock
[ -f "$r/lib/mod/ptp_vmclock.ko" ] || cannot "$kver has no ptp_vmclock module"

# --- the payload: a jlink runtime, the libraries it links, tk4j.jar, core's test classes ---
modules=java.base,jdk.unsupported
[ -z "$jmh" ] || modules="$modules,java.management,jdk.management" # JMH forks with the host VM's arguments
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
  --output "$r/jre" >/dev/null
cp "$jar" "$r/payload/tk4j.jar"
cp -r "$tcls" "$r/payload/test-classes"
if [ -n "$jmh" ]; then cp "$bench" "$r/payload/benchmarks.jar"; echo "$jmh" >"$r/payload/jmh-args"; fi
for lib in $( (ldd "$r/jre/bin/java"; find "$r/jre/lib" -name '*.so' -exec ldd {} \;) 2>/dev/null \
              | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^\t\(\/[^ ]*\) .*/\1/p' | sort -u); do
  mkdir -p "$r$(dirname "$lib")"; cp -L "$lib" "$r$lib"
done

cat >"$r/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev; mount -t tmpfs tmpfs /tmp
mkdir -p /dev/shm; mount -t tmpfs tmpfs /dev/shm
for m in $(grep -v '^ptp_vmclock$' /modules); do insmod "/lib/mod/$m.ko" || echo "TK4J-LAB insmod $m failed"; done
echo "TK4J-LAB KERNEL $(uname -r) clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
J="/jre/bin/java --enable-native-access=ALL-UNNAMED -XX:-UsePerfData -Xshare:off -XX:TieredStopAtLevel=1"
CP=/payload/tk4j.jar:/payload/test-classes
# Moving time in the real page before the driver probes it (so that it registers its PTP clock): the writer
# updates QEMU's page at 0xfeffb000 through /dev/mem once a second, keeping QEMU's disruption marker.
W=600; [ -f /payload/jmh-args ] && W=3600 # seconds of moving time: the whole run
$J -cp $CP org.timekeeping4j.device.VmClockWriterMain /dev/mem $W 0xfeffb000 >/tmp/writer.log 2>&1 &
i=0; while ! grep -q '^published 1 ' /tmp/writer.log && [ $i -lt 300 ]; do sleep 1; i=$((i + 1)); done
sed 's/^/TK4J-WRITER /' /tmp/writer.log
insmod /lib/mod/ptp_vmclock.ko || echo "TK4J-LAB insmod ptp_vmclock failed"
dmesg | grep -i vmclock | sed 's/^/TK4J-LAB DMESG /'
echo "TK4J-LAB DEV $(ls -l /dev/vmclock0 2>&1) ptp: $(ls /dev/ptp* 2>&1 | tr '\n' ' ')"
echo "TK4J-LAB DD $(dd if=/dev/vmclock0 bs=112 count=1 2>/dev/null | od -A x -t x1 | head -n 3 | tr '\n' '|')"
$J -cp $CP org.timekeeping4j.cli.Tk4j vmclock 2>&1 | sed 's/^/TK4J-DECODE /'
$J -cp $CP org.timekeeping4j.cli.Tk4j phc /dev/ptp0 --samples 3 2>&1 | sed 's/^/TK4J-PHC /'
# The PHC at counter speed (issue 47): 100,000 reads, each between two clock_gettime reads of the PHC, with PRECISE
# cross timestamps and again with EXTENDED ones.
$J -cp $CP org.timekeeping4j.device.PhcFastLabMain /dev/ptp0 100000 2>&1 | sed 's/^/TK4J-PHCFAST /'
$J -cp $CP org.timekeeping4j.cli.Tk4j phc /dev/ptp0 --fast --samples 3 --interval 100 2>&1 | sed 's/^/TK4J-PHCFAST-CLI /'
# Opt-in (TK4J_VMCLOCK_JMH): JMH against the real PHC, with the JIT's every tier (the forks inherit these options).
if [ -f /payload/jmh-args ]; then
  ip link set lo up # JMH's forks report to the host VM over loopback
  /jre/bin/java --enable-native-access=ALL-UNNAMED -XX:-UsePerfData -Xshare:off -jar /payload/benchmarks.jar \
    $(cat /payload/jmh-args) -p device=/dev/ptp0 2>&1 | sed 's/^/TK4J-JMH /'
fi
# The watch writes to a file (a pipe through sed held its lines back until exit); its first line says it watches.
$J -cp $CP org.timekeeping4j.cli.Tk4j vmclock --watch --seconds 400 --interval 50 >/tmp/watch.log 2>&1 &
i=0; while ! grep -q ' watching ' /tmp/watch.log && [ $i -lt 600 ]; do sleep 1; i=$((i + 1)); done
sed 's/^/TK4J-WATCH /' /tmp/watch.log
$J -cp $CP org.timekeeping4j.device.VmClockLabMain /dev/vmclock0 120
echo "TK4J-LAB RC $?"
sleep 3
sed '1d; s/^/TK4J-WATCH /' /tmp/watch.log
echo "TK4J-LAB END"
poweroff -f
EOF
chmod +x "$r/init"
(cd "$r" && find . | sed 's#^\./##; /^\.$/d' | "$bdir/busybox" cpio -o -H newc 2>/dev/null) | gzip -1 >"$work/initrd.gz"
say "initrd $(du -h "$work/initrd.gz" | cut -f1) ($kver, QEMU $( . "$q10/env"; "$q10/usr/bin/qemu-system-x86_64" --version | head -n 1))"

. "$q10/env"
"$q10/usr/bin/qemu-img" create -q -f qcow2 "$work/snap.qcow2" 64M
qemu=("$q10/usr/bin/qemu-system-x86_64" -M q35 -accel tcg,thread=single -cpu max,+invtsc,x-force-features=on
      -smp 2 -m 1536M -display none -no-reboot -nic none -serial stdio -L "$q10/fw"
      -monitor "unix:$work/mon.sock,server=on,wait=off" -device vmclock
      -drive "file=$work/snap.qcow2,if=virtio,format=qcow2"
      -kernel "$kdir/vmlinuz" -initrd "$work/initrd.gz"
      -append "console=ttyS0 quiet loglevel=3 panic=-1 rdinit=/init tsc=reliable iomem=relaxed")

# The host's side: print the console, and once the guest is READY and the watch is watching, savevm + loadvm.
set +e
timeout -k 10 "$timeout" python3 - "$work/mon.sock" "$work/console.log" "${qemu[@]}" <<'PY'
import signal, socket, subprocess, sys, time
sock_path, log_path, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
def hmp(command):
    s = socket.socket(socket.AF_UNIX); s.connect(sock_path); s.settimeout(120)
    buf = b""
    while not buf.rstrip().endswith(b"(qemu)"):
        buf += s.recv(4096)
    t0 = time.time(); s.sendall(command.encode() + b"\n"); buf = b""
    while not buf.rstrip().endswith(b"(qemu)"):
        buf += s.recv(4096)
    s.close()
    answer = buf.decode(errors="replace").replace("\r", "")
    answer = "\n".join(l for l in answer.split("\n") if l.strip() and not l.startswith("(qemu)") and command not in l)
    return answer, f"TK4J-HOST {command}: {time.time() - t0:.2f} s{': ' + answer if answer else ''}\n"
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
# timeout(1) signals this process only: take QEMU down with it.
signal.signal(signal.SIGTERM, lambda *_: (p.kill(), sys.exit(124)))
ready = watching = done = False
with open(log_path, "w") as log:
    for raw in p.stdout:
        line = raw.decode(errors="replace").replace("\r", "")
        sys.stdout.write(line); sys.stdout.flush(); log.write(line); log.flush()
        ready |= line.startswith("TK4J-LAB READY")
        watching |= line.startswith("TK4J-WATCH") and " watching " in line
        if ready and watching and not done:
            done = True
            time.sleep(1)
            for c in ("savevm s1", "loadvm s1"):
                answer, note = hmp(c)
                sys.stdout.write(note); sys.stdout.flush(); log.write(note); log.flush()
                if "Error" in answer:
                    print("TK4J-HOST monitor error: stopping", flush=True); p.kill(); sys.exit(1)
sys.exit(p.wait())
PY
status=$?
set -e
[ "$status" = 124 ] && { say "the guest ran past --timeout $timeout s"; exit 124; }
log="$work/console.log"
fails=0
check() { # description, pattern
  if grep -q -E "$2" "$log"; then say "ok    $1"; else say "FAIL  $1 (no line matching: $2)"; fails=$((fails + 1)); fi
}
check "QEMU's own page: magic VCLK, counter_id INVALID, clock_status UNKNOWN, marker 1" \
  '^TK4J-WRITER found magic 0x4b4c4356 counter_id 255 clock_status 0 marker 1 '
check "the writer published moving time through /dev/mem" '^TK4J-WRITER published 1 '
check "the driver registered /dev/vmclock0 and its PTP clock" '^TK4J-LAB DMESG .*vmclock0: registered miscdev, PTP'
check "the driver registered /dev/vmclock0" '^TK4J-LAB DEV c.* /dev/vmclock0'
check "tk4j vmclock decodes the real page (magic, version 1)" '^TK4J-DECODE page +/dev/vmclock0: 4096 bytes, version 1'
check "tk4j vmclock serves the page's TAI with its bound" '^TK4J-DECODE now +[0-9T:.-]+Z TAI \+/- [0-9]+ ns, SYNCHRONIZED'
check "VmClock serves time from the real page" '^TK4J-LAB TIME served: .*status=SYNCHRONIZED, source=vmclock /dev/vmclock0'
check "tk4j phc reads the driver's PTP clock" '^TK4J-PHC /dev/ptp0 .* offset +-?[0-9]+ ns delay'
check "the PHC at counter speed, PRECISE: 100,000 reads between two of the kernel's, 0 outside their bound" \
  '^TK4J-PHCFAST reads 100000, 0 outside; width p50 [0-9]+ ns, p99 [0-9]+ ns; PRECISE cross timestamps'
check "the PHC at counter speed, EXTENDED: 100,000 reads between two of the kernel's, 0 outside their bound" \
  '^TK4J-PHCFAST reads 100000, 0 outside; width p50 [0-9]+ ns, p99 [0-9]+ ns; EXTENDED cross timestamps'
check "what a read costs beside Clocks.nanos(TAI) and the PHC's system call, in one run" \
  '^TK4J-PHCFAST cost per call .*fast/PHC syscall [0-9.]+x'
check "tk4j phc --fast: the estimate holds between two clock_gettime reads of the PHC" '^TK4J-PHCFAST-CLI .*holds$'
check "every PHC read within the bounds of the VmClock reads around it" '^TK4J-LAB PHC [0-9]+ reads .*: 0 outside the published bound'
check "poll() without NOTIFICATION_PRESENT: POLLHUP, refused in one line" '^TK4J-LAB POLL refused: .*no notifications'
check "ClockBound with the page's marker: the daemon's status" '^TK4J-LAB CLOCKBOUND before: SYNCHRONIZED'
check "savevm and loadvm through the monitor" '^TK4J-HOST loadvm s1'
check "VmClock.disruptedSince saw the loadvm" '^TK4J-LAB DISRUPTED marker'
check "ClockBound.now reports DISRUPTED, unbounded" '^TK4J-LAB CLOCKBOUND after: DISRUPTED earliest -9223372036854775808'
check "an event recorded before the loadvm exports extrapolated=true" '^TK4J-LAB EVENT recorded before the disruption exported extrapolated=true'
check "tk4j vmclock --watch printed the marker change" '^TK4J-WATCH .*Z  disruption marker [0-9]+ -> [0-9]+'
check "BoundedClock.system() watches /dev/vmclock0 and serves adjtimex's bound" \
  '^TK4J-LAB SYSTEM before: SYNCHRONIZED .*watching the VMClock page /dev/vmclock0'
check "DISRUPTION_SOON reaches awaitDisruption and every read" '^TK4J-LAB FLAGS SOON .* ok$'
check "DISRUPTION_IMMINENT reaches awaitDisruption and every read" '^TK4J-LAB FLAGS IMMINENT .* ok$'
check "the flags cleared read NONE again" '^TK4J-LAB FLAGS NONE .* ok$'
check "BoundedClock.system()'s first read after loadvm: DISRUPTED, unbounded" \
  '^TK4J-LAB SYSTEM after: DISRUPTED earliest -9223372036854775808 latest 9223372036854775807'
check "a ServedBounds not refreshed since: its first read after loadvm DISRUPTED" \
  '^TK4J-LAB SERVED after: first read DISRUPTED earliest -9223372036854775808'
check "served again once its source measured since the marker moved" '^TK4J-LAB SERVED refreshed: SYNCHRONIZED'
check "the lab main exited 0" '^TK4J-LAB RC 0'
[ "$fails" = 0 ] && { say "all checks passed"; exit 0; }
say "$fails check(s) failed"
exit 1
