#!/usr/bin/env bash
# Side by side on a real kernel (issue 13, issue 22 item 7, docs/PERFORMANCE.md): in one QEMU guest run,
# one uinput device per recording replayed in real time, read at once by (a) a bare libevdev loop (the
# floor, checks/bench/evdev-floor.c), (b) `libinput debug-events`, (c) multitouchd with one client
# subscribed to touches, gestures and devices, (d) libinput in-process (checks/bench/libinput-latency.c,
# its own delivery latency). Boots the guest N times (--runs, default 7) and prints, per recording, the
# medians over the runs with [min-max] (checks/bench/side-by-side-report.py): CPU time per evdev event
# of each reader, the ratios multitouchd/libinput and multitouchd/floor taken within each run, and the
# latency kernel event time -> receipt (p50/p99) of the floor, libinput in-process and the client.
#
# usage: checks/bench/side-by-side.sh [--runs N] [--short]   (as root; builds the release multitouchd)
#   MT_DAEMON=PATH measures that multitouchd binary instead (e.g. a build of another commit); MT_BIN=DIR
#   takes multitouchd and multitouchctl from DIR and builds nothing.
#   MT_SCHED=unit (default) runs the daemon with the scheduling systemd/multitouchd.service gives it
#   (CPUSchedulingPolicy=/Priority=, through chrt); MT_SCHED=default runs it as the other readers run.
#   MT_KEEP=1 keeps the work directory (printed); MT_RUNS_TABLE=1 also prints every run's ratios;
#   MT_ONLY=NAME plays only rec/NAME.evemu; MT_PROFILE=1 adds `perf record -g` and `strace -c` of the
#   daemon during each play (NAME.perf.data, NAME.strace in the kept run directory; the CPU figures of
#   such a run are disturbed).
#   recordings (checks/bench/side-by-side-recordings.py builds them from ../shared/recordings):
#   - touchscreen-10-fingers: dell_canvas_touch (real, 5 fingers) laid over its mirrored copy 4 frames
#     later, up to 10 fingers, repeated 5 times (2,270 frames, 47,000 evdev events, 71 s);
#   - touchpad-protocol-a: the real SynPS2 Synaptics TouchPad recordings (two-finger scroll x4, moves,
#     taps) rewritten as protocol A (SYN_MT_REPORT, no slots, no tracking ids; 2,547 frames, 48 s);
#   - touchpad-synaptics-scroll: the same two-finger scroll as recorded (protocol B), 6 copies.
#   Without ../shared, the generated fingers-10 and the protocol-A and touchpad fixtures. --short: the generated
#   fingers-2 only, one run (CI: checks that it runs and reports).
# Figures are guest CPU under TCG emulation (no KVM here): compare the ratios, not the microseconds.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
short=0
runs=7
while [ $# -gt 0 ]; do
  case "$1" in
    --short) short=1; runs=1 ;;
    --runs) runs=${2:?--runs N}; shift ;;
    *) echo "usage: checks/bench/side-by-side.sh [--runs N] [--short]" >&2; exit 2 ;;
  esac
  shift
done
[ "$(id -u)" = 0 ] || { echo "side-by-side: must run as root (QEMU guest setup)" >&2; exit 2; }
MULTITOUCHD_GUEST_DEPS=1 bash scripts/install-deps.sh >&2 || exit 2
if [ -n "${MT_BIN:-}" ]; then
  bin=$MT_BIN   # a directory with multitouchd and multitouchctl already built
elif [ "$short" = 1 ]; then
  bin=$(swift build --show-bin-path)
  [ -x "$bin/multitouchd" ] || swift build --product multitouchd >&2 || exit 2
  [ -x "$bin/multitouchctl" ] || swift build --product multitouchctl >&2 || exit 2
else
  swift build -c release --product multitouchd >&2 && swift build -c release --product multitouchctl >&2 || exit 2
  bin=$(swift build -c release --show-bin-path)
fi
daemon=${MT_DAEMON:-$bin/multitouchd}
sched=
if [ "${MT_SCHED:-unit}" = unit ]; then
  policy=$(sed -n 's/^CPUSchedulingPolicy=//p' systemd/multitouchd.service)
  priority=$(sed -n 's/^CPUSchedulingPriority=//p' systemd/multitouchd.service)
  case "$policy" in fifo) sched="chrt -f ${priority:-1}" ;; rr) sched="chrt -r ${priority:-1}" ;; esac
  nice=$(sed -n 's/^Nice=//p' systemd/multitouchd.service)
  [ -n "$nice" ] && sched="nice -n $nice $sched"
fi
echo "side-by-side: multitouchd runs with ${sched:-default scheduling} (MT_SCHED=${MT_SCHED:-unit})" >&2
work=$(mktemp -d /var/tmp/multitouchd-side-by-side.XXXXXX)
chmod 755 "$work"
if [ "${MT_KEEP:-0}" = 1 ]; then echo "side-by-side: keeping $work" >&2; else trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$work/rec" "$work/gen"
cp "$daemon" "$work/multitouchd" || exit 2   # the guest sees $work (and not, say, /var/tmp)
cc -O2 -Wall -o "$work/evdev-floor" checks/bench/evdev-floor.c $(pkg-config --cflags --libs libevdev) || exit 2
cc -O2 -Wall -o "$work/libinput-latency" checks/bench/libinput-latency.c $(pkg-config --cflags --libs libinput) || exit 2

recordings="python3 checks/bench/side-by-side-recordings.py"
shared=$root/../shared/recordings
"$bin/multitouchctl" bench --save "$work/gen" > /dev/null || exit 2
tp=$shared/evemu-devices/touchpads/"SynPS2 Synaptics TouchPad"
scroll=$tp.two-finger-vert-scroll.events
if [ "$short" = 1 ]; then
  $recordings repeat "$work/rec/touchscreen-fingers-2.evemu" 1 "$work/gen/fingers-2.evemu" || exit 2
elif [ -d "$shared" ]; then
  $recordings ten-fingers "$work/rec/touchscreen-10-fingers.evemu" 5 "$shared/whot_evemu-devices_dell_canvas_touch.evemu" &&
    $recordings protocol-a "$work/rec/touchpad-protocol-a.evemu" "$tp.desc" "$scroll" "$tp.events" "$scroll" \
      "$tp.leftmove.events" "$scroll" "$tp.fdo48777-reproducer.events" "$scroll" &&
    $recordings repeat "$work/rec/touchpad-synaptics-scroll.evemu" 6 "$scroll" "$tp.desc" || exit 2
else
  $recordings repeat "$work/rec/touchscreen-fingers-10.evemu" 1 "$work/gen/fingers-10.evemu" &&
    $recordings repeat "$work/rec/protocol-a-fixture.evemu" 20 checks/fixtures/protocol-a-two-fingers.evemu &&
    $recordings repeat "$work/rec/touchpad-fixture.evemu" 10 checks/fixtures/touchpad-three-fingers-two-slots.evemu || exit 2
fi

rc=0
for run in $(seq "$runs"); do
  echo "side-by-side: guest run $run of $runs ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  rm -rf "$work/out"
  QP_UDEV=1 QP_RW_DIRS="$work" QP_PASSENV="MT_WORK MT_DAEMON MT_ROOT MT_PROFILE MT_ONLY MT_DAEMON_PREFIX" QP_TIMEOUT=${MT_GUEST_TIMEOUT:-900} \
    MT_WORK=$work MT_DAEMON=$work/multitouchd MT_ROOT=$root MT_DAEMON_PREFIX="$sched" \
    bash tools/guest/run-in-guest.sh "$root/checks/bench/side-by-side-guest.sh" >&2
  status=$?
  [ $status = 0 ] || { echo "side-by-side: guest run $run failed ($status)"; rc=1; }
  mkdir -p "$work/run-$(printf %02d "$run")"
  cp "$work"/out/*.txt "$work/run-$(printf %02d "$run")/" 2>/dev/null
  [ "${MT_PROFILE:-0}" = 1 ] && cp "$work"/out/*.perf.data "$work"/out/*.strace "$work/run-$(printf %02d "$run")/" 2>/dev/null
done
echo "side-by-side: multitouchd with ${sched:-default scheduling}; finished $(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 checks/bench/side-by-side-report.py "$work" ${MT_RUNS_TABLE:+--runs-table}
py=$?
[ $rc = 0 ] && [ $py = 0 ]
