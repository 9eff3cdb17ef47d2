# scripts/chrony/lab.sh: the chrony lab's common part, sourced by scripts/chrony-agreement.sh and
# scripts/chrony-bounds.sh (set name=... and unit=... first). Opt-in, Linux, root: a chronyd of the lab's own steers
# the kernel clock of the whole machine while it runs; on exit (also on error or Ctrl-C) the lab stops its chronyd
# and its reference writer, restores the kernel's NTP state saved at the start (frequency, tick, status, PLL offset,
# TAI offset) and slews REALTIME back onto the line it followed before (ClockLab.java restore).
#
#   lab_whole_numbers V.. dies on the first value that is not a whole number (options)
#   lab_init              checks (Linux, root, no other time daemon, the SHM segment free), installs chrony where
#                         missing, finds a JDK 25, builds the CLI, makes $work and the exit trap
#   lab_save              waits for the clock to be quiet, saves its state to $work/state
#   lab_chronyd LINE...   writes $work/chrony.conf (SHM refclock $unit as SIM, the lines given) and starts chronyd
#   lab_wait_sync         waits up to 60 s for chronyd to select SIM
#   lab_stop              stops chronyd and the writer, restores the clock
# The caller starts its writer itself and sets writer_pid (it must be the JVM, not a subshell).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
die() { echo "$name: $*" >&2; exit 2; }
lab_whole_numbers() { local v; for v in "$@"; do [[ "$v" =~ ^[0-9]+$ ]] || die "'$v' is not a whole number"; done; }

lab_init() {
  [ "$(uname -s)" = Linux ] || die "Linux only"
  [ "$(id -u)" -eq 0 ] || die "must run as root: chronyd steers the kernel clock (sudo $0)"
  # Anything else steering the clock would make the run meaningless, and our restore would fight it.
  local d pid
  for d in chronyd ntpd ntpsec openntpd systemd-timesyncd ptp4l phc2sys ts2phc; do
    if pid="$(pgrep -x "${d:0:15}" | head -n 1)"; then
      die "$d is already running (pid $pid); stop it first (e.g. systemctl stop ${d%d}), this script runs its own chronyd"
    fi
  done
  shm_key="$(printf '0x%08x' $((0x4e545030 + unit)))"
  if ipcs -m | awk -v k="$shm_key" '$1 == k { found = 1 } END { exit !found }'; then
    die "the SHM segment of refclock unit $unit ($shm_key) exists already (ipcs -m): pick another --unit or remove it (ipcrm -M $shm_key)"
  fi
  if ! command -v chronyd >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || die "chronyd not found and no apt-get: install chrony (4.x) yourself"
    echo "$name: installing chrony (apt-get)..." >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chrony >&2
    if pid="$(pgrep -x chronyd | head -n 1)"; then
      die "installing chrony started the system's chronyd (pid $pid); stop it (systemctl stop chrony) and rerun"
    fi
  fi
  jdk="$("$here/scripts/java25" --home 2>/dev/null)" || die "no JDK 25 or newer found (set TK4J_JAVA_HOME)"
  # Build the CLI now, so no build lands inside a measured window.
  (cd "$here" && ./tk4j --version >/dev/null) || die "./tk4j does not build"
  work="$(mktemp -d "/tmp/$name.XXXXXX")" # 0700: chronyd accepts its command socket here
  chronyd_pid="" writer_pid="" restored=0
  trap lab_cleanup EXIT
  trap 'exit 130' INT TERM
}

lab() { "$jdk/bin/java" --enable-native-access=ALL-UNNAMED "$here/scripts/chrony/ClockLab.java" "$@"; }

lab_cleanup() {
  local rc=$?
  set +e
  lab_stop
  ipcrm -M "$shm_key" 2>/dev/null
  if [ "${keep:-0}" -eq 1 ]; then echo "logs kept in $work"; else rm -rf "$work"; fi
  exit "$rc"
}

lab_save() {
  # A test that flips the frequency (FastClocksTest's steering test, another lab run) would have us save and later
  # restore one moment of its flipping.
  lab quiet 3 || die "rerun when nothing else steers the clock"
  lab save "$work/state"
}

lab_chronyd() {
  {
    echo "# private configuration of scripts/$name.sh: no network, one SHM reference clock"
    echo "refclock SHM $unit refid SIM poll 0 dpoll -2 precision 1e-7"
    printf '%s\n' "$@"
    echo "driftfile $work/drift"
    echo "pidfile $work/chronyd.pid"
    echo "port 0"
    echo "logdir $work"
    echo "log tracking refclocks"
  } >"$work/chrony.conf"
  mkdir -p /run/chrony # chronyc binds its client socket there
  chronyd -d -u root -f "$work/chrony.conf" >"$work/chronyd.log" 2>&1 & # no -x: it must steer
  chronyd_pid=$!
}

cc() { chronyc -h "$work/chronyd.sock" -n "$@"; }

lab_wait_sync() {
  echo "== waiting for chronyd to select the SHM reference clock"
  local i
  for i in $(seq 1 120); do
    kill -0 "$chronyd_pid" 2>/dev/null || { cat "$work/chronyd.log" >&2; die "chronyd exited"; }
    kill -0 "$writer_pid" 2>/dev/null || { cat "$work/writer.log" >&2; die "the SHM writer exited"; }
    if cc tracking 2>/dev/null | grep -q '^Reference ID *: [0-9A-F]* (SIM)'; then break; fi
    sleep 0.5
  done
  cc tracking | grep -q '(SIM)' || { cat "$work/chronyd.log" >&2; die "chronyd did not synchronise to SIM in 60 s"; }
  echo "   synchronised after about $((i / 2)) s"
}

# lab_clocksource NAME: this run's clocksource (the host's, switched now; lab_stop switches it back).
lab_clocksource() {
  local f=/sys/devices/system/clocksource/clocksource0
  grep -qw -- "$1" "$f/available_clocksource" \
    || die "clocksource '$1' is not available here (available: $(cat "$f/available_clocksource"))"
  clocksource_saved="$(cat "$f/current_clocksource")"
  echo "$1" >"$f/current_clocksource"
  echo "== clocksource $1 (was $clocksource_saved; switched back at the end)"
}

lab_stop() {
  if [ -n "${clocksource_saved:-}" ]; then
    echo "$clocksource_saved" >/sys/devices/system/clocksource/clocksource0/current_clocksource
    echo "== clocksource $clocksource_saved again"
    clocksource_saved=""
  fi
  if [ -n "$chronyd_pid" ]; then kill "$chronyd_pid" 2>/dev/null; wait "$chronyd_pid" 2>/dev/null || true; chronyd_pid=""; fi
  if [ -n "$writer_pid" ]; then kill "$writer_pid" 2>/dev/null; wait "$writer_pid" 2>/dev/null || true; writer_pid=""; fi
  if [ "$restored" -eq 0 ] && [ -f "$work/state" ]; then
    echo "== restoring the kernel clock"
    lab restore "$work/state"
    restored=1
  fi
}
