#!/usr/bin/env bash
# scripts/lab.sh [--kernel NAME] CMD...: runs CMD as root inside a guest kernel, with this machine's root
# read-only inside (the repository at the same path), CMD's output printed and its exit code returned. The
# guest's clocks are its own: CMD may steer, step and leap them without touching this machine's clock.
#
# --kernel uml (default): User-Mode Linux built from Debian's kernel source with the time drivers (pps_ktimer,
#   netdevsim's mock PTP clock, AUX clocks); no [vvar], so exact mode cannot run there. See scripts/lab/uml.sh.
# --kernel OTHER: a stock kernel under QEMU's emulation (a real [vvar]); see scripts/lab/qemu.sh.
# The first use builds or fetches the kernel into ~/.cache/timekeeping4j/lab (minutes); later ones boot in about
# a second. Exit status: CMD's; 125 when the guest cannot be set up (the reason on stderr).
set -euo pipefail
lab="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lab"
kernel=uml
case "${1:-}" in
  --kernel) [ $# -ge 2 ] || { echo "lab.sh: --kernel needs a name (uml, or one scripts/lab/qemu.sh knows)" >&2; exit 2; }
            kernel=$2; shift 2 ;;
  --kernel=*) kernel=${1#--kernel=}; shift ;;
esac
[ $# -gt 0 ] || { echo "usage: scripts/lab.sh [--kernel NAME] CMD..." >&2; exit 2; }
if [ "$kernel" = uml ]; then
  exec "$lab/uml.sh" "$@"
fi
exec "$lab/qemu.sh" --kernel "$kernel" "$@"
