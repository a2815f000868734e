#!/usr/bin/env bash
# Side by side on a real kernel (issue 13, docs/PERFORMANCE.md): in one QEMU guest run, one uinput
# device per recording replayed in real time, read at once by (a) a bare libevdev loop (the floor,
# checks/bench/evdev-floor.c), (b) `libinput debug-events`, (c) multitouchd with one subscribed client.
# Prints CPU time per evdev event of each, the ratios multitouchd/libinput and multitouchd/floor, and
# the latency kernel event time -> client line (p50/p99) for multitouchd and for the floor.
#
# usage: checks/bench/side-by-side.sh [--short]     (as root; builds the release multitouchd)
#   recordings: a touchscreen (../shared/recordings dell_canvas_touch, up to 5 fingers, 450 frames) and
#   a touchpad (the Synaptics two-finger scroll, 6 copies); without ../shared, the generated fingers-2
#   and the fixture touchpad. --short: the generated fingers-2 only (CI: checks that it runs and reports).
# Figures are guest CPU under TCG emulation (no KVM here): compare the ratios, not the microseconds.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
short=0
[ "${1:-}" = --short ] && short=1
[ "$(id -u)" = 0 ] || { echo "side-by-side: must run as root (QEMU guest setup)" >&2; exit 2; }
MULTITOUCHD_GUEST_DEPS=1 bash scripts/install-deps.sh >&2 || exit 2
if [ "$short" = 1 ]; then
  bin=$(swift build --show-bin-path)
  [ -x "$bin/multitouchd" ] || swift build --product multitouchd >&2 || exit 2
  [ -x "$bin/multitouchctl" ] || swift build --product multitouchctl >&2 || exit 2
else
  swift build -c release --product multitouchd >&2 && swift build -c release --product multitouchctl >&2 || exit 2
  bin=$(swift build -c release --show-bin-path)
fi
work=$(mktemp -d /var/tmp/multitouchd-side-by-side.XXXXXX)
chmod 755 "$work"
[ "${MT_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/rec" "$work/gen"
cc -O2 -Wall -o "$work/evdev-floor" checks/bench/evdev-floor.c $(pkg-config --cflags --libs libevdev) || exit 2

# An evemu file repeated COUNT times (times shifted, a 0.5 s gap), fuzz 0 (the values were filtered
# once by the real device's fuzz already) and the first time at 1 s (evemu's "t=0 means no timing").
repeat() {  # OUT COUNT FILE [DESC]
  python3 - "$@" <<'PY'
import sys
out, count, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
header, events = [], []
for path in reversed(files):
    for line in open(path):
        if line.startswith("E:"):
            if path == files[0]:
                p = line.split()
                events.append((float(p[1]), p[2:]))
        elif line.startswith("A:"):
            p = line.split(); p[4] = "0"; header.append(" ".join(p) + "\n")
        elif path == files[-1] or not line.startswith("#"):
            header.append(line)
t0, t1 = events[0][0], events[-1][0]
with open(out, "w") as f:
    f.writelines(header)
    for copy in range(count):
        shift = 1.0 - t0 + copy * (t1 - t0 + 0.5)
        for t, rest in events:
            f.write("E: %.6f %s\n" % (t + shift, " ".join(rest)))
PY
}
shared=$root/../shared/recordings
"$bin/multitouchctl" bench --save "$work/gen" > /dev/null || exit 2
if [ "$short" = 1 ]; then
  repeat "$work/rec/touchscreen-fingers-2.evemu" 1 "$work/gen/fingers-2.evemu"
elif [ -d "$shared" ]; then
  repeat "$work/rec/touchscreen-dell-canvas.evemu" 1 "$shared/whot_evemu-devices_dell_canvas_touch.evemu"
  repeat "$work/rec/touchpad-synaptics-scroll.evemu" 6 \
    "$shared/whot_evemu-devices_SynPS2_Synaptics_TouchPad.two-finger-vert-scroll.events" \
    "$shared/whot_evemu-devices_SynPS2_Synaptics_TouchPad.desc"
else
  repeat "$work/rec/touchscreen-fingers-2.evemu" 1 "$work/gen/fingers-2.evemu"
  repeat "$work/rec/touchpad-fixture.evemu" 10 checks/fixtures/touchpad-three-fingers-two-slots.evemu
fi

QP_UDEV=1 QP_RW_DIRS="$work" QP_PASSENV="MT_WORK MT_DAEMON MT_ROOT" QP_TIMEOUT=${MT_GUEST_TIMEOUT:-600} \
  MT_WORK=$work MT_DAEMON=$bin/multitouchd MT_ROOT=$root \
  bash tools/guest/run-in-guest.sh "$root/checks/bench/side-by-side-guest.sh"
rc=$?
[ $rc = 0 ] || echo "side-by-side: guest run failed ($rc)"
python3 - "$work" <<'PY'
import glob, os, sys
work = sys.argv[1]
failed = False
print("%-28s %8s %10s %10s %12s %8s %8s | %-26s %-26s" % ("recording", "events", "floor ns", "libinput", "multitouchd", "/libinp", "/floor",
      "floor latency p50/p99 us", "client latency p50/p99 us"))
for path in sorted(glob.glob(os.path.join(work, "out", "*.txt"))):
    name = os.path.basename(path)[:-4]
    f = {}
    for line in open(path):
        p = line.split()
        if p: f[p[0]] = p[1:]
    try:
        before = [int(x) for x in f["cpu_before"]]
        after = [int(x) for x in f["cpu_after"]]
        floor = dict(zip(f["floor"][0::2], f["floor"][1::2])) if "floor" in f else {}
        client = dict(zip(f["client"][0::2], f["client"][1::2])) if "client" in f else {}
        events = int(floor["events"])
    except (KeyError, ValueError) as e:
        print("%-28s incomplete: %s %s" % (name, e, open(path).read()[:300])); failed = True; continue
    cpu = [(a - b) / max(1, events) for a, b in zip(after, before)]
    print("%-28s %8d %10.0f %10.0f %12.0f %8.2f %8.2f | %-26s %-26s" % (
        name, events, cpu[0], cpu[1], cpu[2], cpu[2] / max(1e-9, cpu[1]), cpu[2] / max(1e-9, cpu[0]),
        "%s / %s" % (floor.get("p50_us"), floor.get("p99_us")), "%s / %s" % (client.get("p50_us"), client.get("p99_us"))))
    print("%-28s client CPU %.0f ns/event; multitouchd + client %.0f ns/event; client frames %s of %s; %s" % (
        "", cpu[3], cpu[2] + cpu[3], client.get("frames"), floor.get("frames"), " ".join(" ".join(v) for k, v in f.items() if k.startswith("libinput") for v in [[k] + v])))
    if events == 0 or client.get("frames", "0") == "0":
        failed = True
sys.exit(1 if failed else 0)
PY
py=$?
[ $rc = 0 ] && [ $py = 0 ]
