#!/usr/bin/env bash
# The device matrix (docs/DEVICES.md, "Device matrix"): every multitouch device of
# ../shared/hid-devices/devices.json made through uhid in a QEMU guest, picked up by the release
# multitouchd (live discovery), driven by scripted scenarios as HID input reports, and judged against
# what the kernel produced and what the scenario says.
#
# usage: checks/devices/run-matrix.sh [--all | --devices NAME,NAME... | --ci] [--table FILE] [--keep]
#   --ci (default)    the fixed CI subset in checks/devices/ci-devices.txt
#   --all             all 93 devices
#   --devices LIST    these devices (a contributor's one-device entry: --devices sipodev_0603_0002)
#   --table FILE      also write the per-device markdown table (docs/DEVICES.md's matrix) to FILE
#   --keep            keep the work directory (plans, raw kernel events, socket lines, daemon log)
# Environment: MT_BIN=DIR uses DIR/multitouchd and DIR/multitouchctl instead of building the release;
# MT_DEVICES_JSON (default ../shared/hid-devices/devices.json); MT_HIDTOOLS (hid-tools' venv).
# As root (the QEMU guest). Prints one PASS/FAIL line per device and scenario, the totals per scenario
# and "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
start=$SECONDS
devices_json=${MT_DEVICES_JSON:-$root/../shared/hid-devices/devices.json}
mode=ci
list=
table=
keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --all) mode=all ;;
    --ci) mode=ci ;;
    --devices) mode=list; list=$2; shift ;;
    --table) table=$2; shift ;;
    --keep) keep=1 ;;
    *) sed -n '2,/^set -uo/p' "$0" | sed '$d' >&2; exit 64 ;;
  esac
  shift
done
[ "$(id -u)" = 0 ] || { echo "run-matrix: must run as root (QEMU guest)" >&2; exit 2; }
[ -f "$devices_json" ] || { echo "run-matrix: no $devices_json" >&2; exit 2; }
python=$(bash checks/devices/hid-tools.sh) || { echo "run-matrix: hid-tools could not be installed" >&2; exit 2; }
# The guest runs the release binaries, what the package ships (`make build`; a no-op when built).
# MT_BIN=DIR runs other builds' multitouchd and multitouchctl instead (a before/after comparison).
if [ -n "${MT_BIN:-}" ]; then
  bin=$MT_BIN
else
  make -s build >&2 || { echo "run-matrix: release build failed" >&2; exit 2; }
  bin=$(swift build -c release --show-bin-path)
fi

case $mode in
  all) names=$("$python" -c 'import json,sys; print(" ".join(d["name"] for d in json.load(open(sys.argv[1]))["devices"]))' "$devices_json") ;;
  ci) names=$(grep -v '^#' checks/devices/ci-devices.txt | awk '{print $1}' | tr '\n' ' ') ;;
  list) names=$(echo "$list" | tr ',' ' ') ;;
esac
work=$(mktemp -d /var/tmp/multitouchd-matrix.XXXXXX)
chmod 755 "$work"
[ "$keep" = 1 ] && echo "run-matrix: work directory $work" || trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086
"$python" checks/devices/plan.py "$devices_json" "$work/plans" --only "$(echo $names | tr ' ' ',')" || exit 2
count=$(echo $names | wc -w)
echo "run-matrix: $count device(s) planned in $((SECONDS - start)) s"

run_guest() {
  rm -rf "$work/out" "$work"/daemon.* "$work"/uptime.*
  guest_start=$SECONDS
  # About 12 s of guest time per device under TCG; the timeout leaves room for a loaded host.
  QP_EXTRA_MODS="uhid hid_multitouch" QP_RW_DIRS="$work" QP_TIMEOUT=$((120 + 40 * count)) \
    QP_PASSENV="MT_WORK MT_CTL MT_DAEMON MT_ROOT MT_PYTHON MT_NAMES" \
    MT_WORK=$work MT_CTL=$bin/multitouchctl MT_DAEMON=$bin/multitouchd MT_ROOT=$root MT_PYTHON=$python \
    MT_NAMES="$names" bash tools/guest/run-in-guest.sh "$root/checks/devices/guest-matrix.sh"
  guest_rc=$?
  guest_wall=$((SECONDS - guest_start))
  echo "run-matrix: guest run $guest_wall s (exit $guest_rc)"
}
# The guest's clock must be the host's: the kernel calibrates its TSC at boot, and on a host too busy to
# give the emulator its time then, the guest's seconds came out 20 times too short (a 110 s run that
# the guest counted as 2,000 s: every 10 ms frame gap looked like a stall of the machine, and
# hid-multitouch's 100 ms sticky-fingers timer lifted contacts all the time). Such a run is not a
# measurement of anything: it is said, and the guest is booted once more.
clock_skewed() {
  [ -f "$work/uptime.start" ] && [ -f "$work/uptime.end" ] || return 1
  awk -v a="$(cat "$work/uptime.start")" -v b="$(cat "$work/uptime.end")" -v w="$guest_wall" \
    'BEGIN { exit !(b - a > 1.5 * w + 5) }'
}
run_guest
if clock_skewed; then
  echo "run-matrix: the guest counted $(awk -v a="$(cat "$work/uptime.start")" -v b="$(cat "$work/uptime.end")" 'BEGIN{printf "%.0f", b - a}') s in $guest_wall s of the host's: its clock is off (TSC calibrated on a starved host); booting it again"
  run_guest
  if clock_skewed; then echo "run-matrix: the guest's clock is off again; the results below are not trustworthy"; guest_rc=4; fi
fi
# shellcheck disable=SC2086
python3 checks/devices/judge.py "$work" ${table:+--table "$table"} $names
judged=$?
echo "run-matrix: total $((SECONDS - start)) s"
[ $guest_rc = 0 ] && [ $judged = 0 ]
