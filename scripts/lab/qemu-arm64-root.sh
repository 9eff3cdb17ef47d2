#!/usr/bin/env bash
# scripts/lab/qemu-arm64-root.sh: prints the arm64 Debian root (with openjdk-25) that the QEMU lab's arm64
# guests run from: the one scripts/arm64.sh builds and caches (mmdebstrap, once), reused as it is.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TK4J_ARM64= exec "$here/../arm64.sh" --root
