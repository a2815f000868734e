#!/usr/bin/env bash
# Checks systemd/multitouchd.service and multitouchd.socket with the host's systemd-analyze (the
# systemd package is enough; no running systemd is needed):
#   1. `systemd-analyze verify` must print nothing and exit 0. verify insists that ExecStart= exists,
#      so it runs on a temporary copy whose /usr/local/bin/multitouchd points at the built daemon
#      (MULTITOUCHD_BIN, else `swift build --show-bin-path`), or at a stub when none is built.
#   2. `systemd-analyze security --offline=true` must score MAX_EXPOSURE (2.0) or lower.
# Prints the score; exits non-zero on any finding.
set -euo pipefail
cd "$(dirname "$0")/../.."
max=${MAX_EXPOSURE:-2.0}

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

mkdir -p "$work/units"
for unit in multitouchd.service multitouchd.socket; do
  sed "s|/usr/local/bin/multitouchd|$daemon|g" "systemd/$unit" > "$work/units/$unit"
done

status=0
# SYSTEMD_UNIT_PATH with a trailing ':' keeps the built-in search path (for sysinit.target etc.).
if ! out=$(SYSTEMD_UNIT_PATH="$work/units:" systemd-analyze verify "$work/units/multitouchd.socket" "$work/units/multitouchd.service" 2>&1); then
  status=1
fi
if [ -n "$out" ] || [ $status -ne 0 ]; then
  echo "verify-units: systemd-analyze verify reported:"
  printf '%s\n' "$out" | sed "s|$work/units/|systemd/|g"
  status=1
else
  echo "verify-units: systemd-analyze verify: no findings"
fi

report=$(systemd-analyze security --offline=true --no-pager "$work/units/multitouchd.service" 2>&1 || true)
score=$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for multitouchd.service: \([0-9.]*\).*/\1/p')
if [ -z "$score" ]; then
  echo "verify-units: could not read the security score:"
  printf '%s\n' "$report"
  exit 1
fi
printf '%s\n' "$report" | grep '✗' | sed 's/^/  /' || true
echo "verify-units: security exposure $score (limit $max)"
if awk -v s="$score" -v m="$max" 'BEGIN { exit !(s > m) }'; then
  echo "verify-units: exposure $score is above $max" >&2
  status=1
fi
exit $status
