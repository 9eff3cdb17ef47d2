# scripts/lab/debian-mirror.sh: sourced by the lab scripts that fetch Debian packages through a private apt
# configuration. debian_mirror prints the Debian archive to fetch from: TK4J_LAB_DEBIAN_MIRROR when set, else the
# one this machine's apt already uses for Debian's main archive (a machine behind its own mirror or proxy has it
# there), read from /etc/apt/sources.list and /etc/apt/sources.list.d/*.list (one-line "deb [opts] URI suite ...")
# and *.sources (deb822 "URIs:"), the security archive left out; http://deb.debian.org/debian where none is found.
# APT_SOURCES_DIR (default /etc/apt) is for its test.
debian_mirror() {
  if [ -n "${TK4J_LAB_DEBIAN_MIRROR:-}" ]; then echo "$TK4J_LAB_DEBIAN_MIRROR"; return; fi
  local dir="${APT_SOURCES_DIR:-/etc/apt}" f line uri
  for f in "$dir/sources.list" "$dir"/sources.list.d/*.list "$dir"/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    while IFS= read -r line; do
      uri=""
      case "$line" in
        deb\ *) line="${line#deb }"
                line="$(printf '%s' "$line" | sed 's/^\[[^]]*\] *//')"; uri="${line%% *}" ;;
        URIs:*) uri="$(printf '%s' "${line#URIs:}" | awk '{print $1}')" ;;
      esac
      case "$uri" in
        *security*|"") ;;
        */debian|*/debian/) echo "${uri%/}"; return ;;
      esac
    done <"$f"
  done
  echo "http://deb.debian.org/debian"
}
