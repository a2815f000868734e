#!/usr/bin/env bash
# Real-kernel check of multitouchd as a service, in the project's QEMU guest (no systemd needed on the
# host): checks/service/guest/service-inner.sh installs it with `make install` inside the guest's
# throwaway root and runs it the way multitouchd.service does (see that script for every check).
# Runs twice: MODE=live (a uinput touchscreen, the unit's exact command line) and MODE=replay
# (--replay of a recording that holds two fingers down). MTD_MODES="replay" picks one (MTD_MODES=""
# none: the systemd check below covers a live device and a replay under the real units); MTD_LIVE=0
# also leaves out the live-device step under systemd (both print what they leave out; until the
# daemon serves live devices, the live checks fail).
# Then, with MTD_SYSTEMD=1 (default), boots systemd as PID 1 of a PID namespace inside the guest and
# runs the installed units for real (checks/service/guest/systemd-inner.sh); with MTD_DEB=dist/X.deb
# that step installs the Debian package with dpkg -i instead (scripts/test.sh passes the one it built).
# Needs: root, a built multitouchd/multitouchctl (swift build), the guest runner's packages.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
runner=${MULTITOUCHD_GUEST_RUNNER:-}
for candidate in "$runner" tools/guest/run-in-guest.sh /work/shared/guest/run-in-guest.sh; do
  [ -n "$candidate" ] && [ -x "$candidate" ] && { runner=$candidate; break; }
done
[ -x "$runner" ] || { echo "guest-service-check: no guest runner (tools/guest/run-in-guest.sh)" >&2; exit 1; }
bin=${MTD_BIN:-$(swift build --show-bin-path)}
[ -x "$bin/multitouchd" ] && [ -x "$bin/multitouchctl" ] || {
  echo "guest-service-check: build first: swift build (no multitouchd in $bin)" >&2
  exit 1
}
status=0
modes=${MTD_MODES-live replay}   # set but empty: only the systemd check
[ -n "${modes// /}" ] || echo "guest-service-check: the modes without systemd (live, replay) not run (MTD_MODES is empty); not counted as passed"
[ "${MTD_LIVE:-1}" = 0 ] && modes=${modes//live/}
for mode in $modes; do
  echo "=== guest service check, mode $mode"
  MTD_REPO=$repo MTD_BIN=$bin MTD_MODE=$mode QP_UDEV=1 QP_PASSENV="MTD_REPO MTD_BIN MTD_MODE" QP_TIMEOUT=600 \
    "$runner" bash "$repo/checks/service/guest/service-inner.sh" || status=1
done
if [ "${MTD_SYSTEMD:-1}" = 1 ]; then
  # MTD_DEB=PATH: the systemd check installs that Debian package (dpkg -i) instead of `make install`.
  deb=
  if [ -n "${MTD_DEB:-}" ]; then
    deb=$(readlink -f "$MTD_DEB")   # the guest sees the host's root read-only, so any path works
    [ -f "$deb" ] || { echo "guest-service-check: no package $MTD_DEB" >&2; exit 1; }
  fi
  echo "=== guest check under systemd (PID 1 of a PID namespace)${deb:+, installed from $(basename "$deb")}"
  MTD_REPO=$repo MTD_BIN=$bin MTD_LIVE=${MTD_LIVE:-1} MTD_DEB=$deb QP_PASSENV="MTD_REPO MTD_BIN MTD_LIVE MTD_DEB" QP_TIMEOUT=500 \
    "$runner" bash "$repo/checks/service/guest/systemd-inner.sh" || status=1
fi
[ "${MTD_LIVE:-1}" = 0 ] && echo "guest-service-check: SKIPPED the live-device checks (MTD_LIVE=0); not counted as passed"
exit $status
