#!/usr/bin/env bash
# Checks the units in systemd/ with the host's systemd-analyze (the systemd package is enough; no
# running systemd is needed): multitouchd.service and .socket, the TUIO forwarder template
# multitouchd-tuio@.service (as the instance multitouchd-tuio@qt.service), multitouchd-bridge.service,
# and multitouchd.service with the TUIO output drop-in (systemd/examples/multitouchd-tuio-output.conf):
#   1. `systemd-analyze verify` must print nothing and exit 0. verify insists that ExecStart= exists,
#      so it runs on temporary copies whose /usr/local/bin/multitouchd and multitouchctl point at the
#      built binaries (MULTITOUCHD_BIN, MULTITOUCHCTL_BIN, else `swift build --show-bin-path`), or at a
#      stub when none is built.
#   2. `systemd-analyze security --offline=true` must score MAX_EXPOSURE (2.0) or lower for the daemon
#      (with and without the drop-in) and the forwarder, and BRIDGE_MAX_EXPOSURE (2.5) for the bridge
#      (a TCP listener).
# Prints the scores; exits non-zero on any finding.
set -euo pipefail
cd "$(dirname "$0")/../.."
max=${MAX_EXPOSURE:-2.0}
bridge_max=${BRIDGE_MAX_EXPOSURE:-2.5}

command -v systemd-analyze >/dev/null || { echo "verify-units: systemd-analyze not found (apt-get install systemd)" >&2; exit 1; }
echo "verify-units: $(systemd-analyze --version | head -1)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

daemon=${MULTITOUCHD_BIN:-}
if [ -z "$daemon" ]; then
  bin_dir=$(swift build --show-bin-path 2>/dev/null || true)
  [ -n "$bin_dir" ] && [ -x "$bin_dir/multitouchd" ] && daemon=$bin_dir/multitouchd
fi
if [ -z "$daemon" ]; then
  daemon=$work/multitouchd-stub
  printf '#!/bin/sh\nexit 0\n' > "$daemon"
  chmod 755 "$daemon"
  echo "verify-units: no built multitouchd found; ExecStart points at a stub"
fi
ctl=${MULTITOUCHCTL_BIN:-$(dirname "$daemon")/multitouchctl}
if [ ! -x "$ctl" ]; then
  ctl=$work/multitouchctl-stub
  printf '#!/bin/sh\nexit 0\n' > "$ctl"
  chmod 755 "$ctl"
  echo "verify-units: no built multitouchctl found; ExecStart points at a stub"
fi

rewrite() { sed -e "s|/usr/local/bin/multitouchd |$daemon |g" -e "s|/usr/local/bin/multitouchctl |$ctl |g" "$1"; }
# Two unit directories: as shipped, and the daemon with the TUIO output drop-in.
mkdir -p "$work/units" "$work/tuio/multitouchd.service.d"
for unit in multitouchd.service multitouchd.socket multitouchd-tuio@.service multitouchd-bridge.service; do
  rewrite "systemd/$unit" > "$work/units/$unit"
done
cp "$work/units/multitouchd.service" "$work/units/multitouchd.socket" "$work/tuio/"
cp systemd/examples/multitouchd-tuio-output.conf "$work/tuio/multitouchd.service.d/tuio.conf"

status=0
# verify ARGS under the unit path DIR: it must print nothing.
verify() {
  local dir=$1 out
  shift
  # SYSTEMD_UNIT_PATH with a trailing ':' keeps the built-in search path (for sysinit.target etc.).
  if ! out=$(cd "$dir" && SYSTEMD_UNIT_PATH="$dir:" systemd-analyze verify "$@" 2>&1) || [ -n "$out" ]; then
    echo "verify-units: systemd-analyze verify $* reported:"
    printf '%s\n' "$out" | sed "s|$dir/|systemd/|g"
    status=1
  else
    echo "verify-units: systemd-analyze verify $*: no findings"
  fi
}
verify "$work/units" multitouchd.socket multitouchd.service multitouchd-tuio@qt.service multitouchd-bridge.service
verify "$work/tuio" multitouchd.service

# security DIR UNIT LIMIT LABEL: the offline exposure score must be LIMIT or lower.
security() {
  local dir=$1 unit=$2 limit=$3 label=$4 report score
  report=$(cd "$dir" && SYSTEMD_UNIT_PATH="$dir:" systemd-analyze security --offline=true --no-pager "$unit" 2>&1 || true)
  score=$(printf '%s\n' "$report" | sed -n "s/.*Overall exposure level for $unit: \([0-9.]*\).*/\1/p")
  if [ -z "$score" ]; then
    echo "verify-units: could not read the security score of $label:"
    printf '%s\n' "$report"
    status=1
    return
  fi
  printf '%s\n' "$report" | grep '✗' | sed 's/^/  /' || true
  echo "verify-units: $label: security exposure $score (limit $limit)"
  if awk -v s="$score" -v m="$limit" 'BEGIN { exit !(s > m) }'; then
    echo "verify-units: $label: exposure $score is above $limit" >&2
    status=1
  fi
}
security "$work/units" multitouchd.service "$max" "multitouchd.service"
security "$work/tuio" multitouchd.service "$max" "multitouchd.service with the TUIO output drop-in"
security "$work/units" multitouchd-tuio@qt.service "$max" "multitouchd-tuio@.service"
security "$work/units" multitouchd-bridge.service "$bridge_max" "multitouchd-bridge.service"
exit $status
