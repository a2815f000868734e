#!/usr/bin/env python3
"""TUIO output checked with clients no one here wrote (docs/TUIO.md, issue 21).

For each recording (a map tour, a pinch and rotate, a palm cancelled mid-pinch): an unmodified Qt Quick program (checks/tuio/touches.qml, run by Qt's own `qml` with
`-platform offscreen -plugin TuioTouch:udp=PORT`) and an OSC decoder listen while `multitouchd --replay`
sends TUIO to both; a monitor client records what the daemon's socket says. Checked:

- every datagram is a valid OSC 1.0 bundle (a decoder written here from the OSC 1.0 spec, and
  python-osc's when it is installed), and the bundles are the daemon's touch frames: one per frame,
  fseq counting up, alive = the touches still down, set = their positions (float32-exact);
- every touch point Qt reports is a daemon touch (same id) at its position within float32 precision,
  Qt saw every touch press and release, and released it where the daemon last had it;
- each pinch Qt's PinchHandler recognises agrees with the daemon's gesture over the same touches:
  same direction of rotation, scale within 5 %, both measured from the frame Qt activated at.

With --regions: two Qt programs, each behind `multitouchctl tuio --region` on its own half of the
screen, each receive only the touches that began in their half, normalized to it.

Network: loopback only (127.0.0.1). Exit status 0 when everything holds.
"""
import argparse
import json
import math
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QML_FILE = os.path.join(ROOT, "checks", "tuio", "touches.qml")
FIXTURES = os.path.join(ROOT, "checks", "fixtures")

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL: " + what)
    return condition


# --- OSC 1.0, from the specification (opensoundcontrol.org/spec-1_0) ------------------------------


class OSCError(Exception):
    pass


def osc_string(data, at):
    end = data.find(b"\0", at)
    if end < 0:
        raise OSCError("unterminated string at %d" % at)
    text = data[at:end].decode("ascii")
    nxt = (end // 4 + 1) * 4
    if nxt > len(data) or any(data[end:nxt]):
        raise OSCError("bad string padding at %d" % at)
    return text, nxt


def osc_message(data):
    address, at = osc_string(data, 0)
    if not address.startswith("/"):
        raise OSCError("address does not start with /: %r" % address)
    tags, at = osc_string(data, at)
    if not tags.startswith(","):
        raise OSCError("type tag string does not start with ,")
    args = []
    for tag in tags[1:]:
        if tag == "i":
            args.append(struct.unpack(">i", data[at:at + 4])[0])
            at += 4
        elif tag == "f":
            args.append(struct.unpack(">f", data[at:at + 4])[0])
            at += 4
        elif tag == "s":
            text, at = osc_string(data, at)
            args.append(text)
        else:
            raise OSCError("unexpected type tag %r" % tag)
    if at != len(data):
        raise OSCError("%d bytes after the arguments" % (len(data) - at))
    return address, args


def osc_bundle(data):
    if len(data) % 4:
        raise OSCError("size %d is not a multiple of 4" % len(data))
    head, at = osc_string(data, 0)
    if head != "#bundle":
        raise OSCError("not a bundle")
    timetag = struct.unpack(">Q", data[at:at + 8])[0]
    at += 8
    messages = []
    while at < len(data):
        size = struct.unpack(">i", data[at:at + 4])[0]
        at += 4
        if size <= 0 or size % 4 or at + size > len(data):
            raise OSCError("bad element size %d" % size)
        messages.append(osc_message(data[at:at + size]))
        at += size
    return timetag, messages


def python_osc_bundle(data):
    """The same bundle through python-osc (PyPI), or None when it is not installed."""
    try:
        from pythonosc.osc_bundle import OscBundle
    except ImportError:
        return None
    bundle = OscBundle(data)
    return [(m.address, list(m.params)) for m in bundle]


def f32(value):
    return struct.unpack(">f", struct.pack(">f", value))[0]


# --- processes ---------------------------------------------------------------------------------


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    check(False, "timed out waiting for " + what)
    return False


def settle(paths, quiet=1.0, limit=20):
    """Waits until none of the files has grown for `quiet` seconds (at most `limit`)."""
    deadline = time.monotonic() + limit
    sizes, since = None, time.monotonic()
    while time.monotonic() < deadline:
        now = [os.path.getsize(p) if os.path.exists(p) else 0 for p in paths]
        if now != sizes:
            sizes, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
        time.sleep(0.1)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return ""


class QtApp:
    """checks/tuio/touches.qml in Qt's qml runtime, reading TUIO on `port`."""

    def __init__(self, qml, port, width, height, workdir, name, mode):
        self.log = os.path.join(workdir, name + ".log")
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_RUNTIME_DIR=workdir)
        self.process = subprocess.Popen(
            [qml, "-platform", "offscreen", "-plugin", "TuioTouch:udp=%d" % port, QML_FILE, "--",
             str(width), str(height), mode],
            stdout=open(self.log + ".out", "w"), stderr=open(self.log, "w"), env=env)
        wait_for(lambda: '"kind":"ready"' in read(self.log), 20, name + " to start")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()

    def events(self):
        out = []
        for line in read(self.log).splitlines():
            at = line.find("{")
            if at >= 0 and line[at:].startswith('{"kind"'):
                out.append(json.loads(line[at:]))
        return out


class Receiver(threading.Thread):
    """Collects every datagram sent to a loopback UDP port."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.datagrams = []
        self.running = True
        self.start()

    def run(self):
        while self.running:
            ready, _, _ = select.select([self.sock], [], [], 0.1)
            if ready:
                self.datagrams.append(self.sock.recv(65536))

    def stop(self):
        self.running = False
        self.join()
        self.sock.close()


def device_size(ctl, recording):
    out = subprocess.run([ctl, "replay", "--json", recording], capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        m = json.loads(line)
        if m["type"] == "deviceAdded":
            return m["device"]["width"], m["device"]["height"]
    raise SystemExit("no device in " + recording)


def window_for(width, height):
    """A window with the device's aspect ratio (Qt maps TUIO's unit square onto the window)."""
    return 600, max(1, round(600 * height / width))


# --- checks ------------------------------------------------------------------------------------


def frames_of(messages):
    """The daemon's whole-device touch frames and gesture updates, from a monitor's JSON lines."""
    device = None
    frames, gestures = [], []
    for m in messages:
        if m["type"] == "hello" and m.get("devices"):
            # A replay waiting for its subscribers has its device in the hello, not in a deviceAdded.
            device = m["devices"][0]
        elif m["type"] == "deviceAdded":
            device = m["device"]
        elif m["type"] == "touches" and "region" not in m:
            frames.append(m)
        elif m["type"] == "gesture":
            gestures.append(m)
    return device, frames, gestures


# docs/PROTOCOL.md "Number precision": the daemon's JSON rounds positions to this step, while TUIO
# carries the exact position as float32; the two agree within half a step.
JSON_POSITION_STEP = 0.001


def rounding(area, t):
    """How far a touch's exact position may be from its rounded JSON one, in the area's units."""
    x, y = area(t)
    x2, y2 = area(dict(t, x=t["x"] + JSON_POSITION_STEP / 2, y=t["y"] + JSON_POSITION_STEP / 2))
    return abs(x2 - x), abs(y2 - y)


def check_bundles(datagrams, frames, area, label):
    """Every datagram a valid OSC bundle; one per frame; alive, set and fseq as the frames say."""
    check(len(datagrams) == len(frames), "%s: %d bundles for %d touch frames" % (label, len(datagrams), len(frames)))
    with_python_osc = 0
    for index, (data, frame) in enumerate(zip(datagrams, frames)):
        try:
            timetag, messages = osc_bundle(data)
        except (OSCError, struct.error, UnicodeDecodeError) as error:
            check(False, "%s: bundle %d is not valid OSC 1.0: %s" % (label, index, error))
            continue
        theirs = python_osc_bundle(data)
        if theirs is not None:
            with_python_osc += 1
            check(theirs == messages, "%s: python-osc reads bundle %d differently" % (label, index))
        check(timetag == 1, "%s: bundle %d time tag %d is not 'immediately'" % (label, index, timetag))
        check(all(a == "/tuio/2Dcur" for a, _ in messages), "%s: bundle %d has a non-2Dcur message" % (label, index))
        kinds = [args[0] for _, args in messages]
        check(kinds[:2] == ["source", "alive"] and kinds[-1] == "fseq" and set(kinds[2:-1]) <= {"set"},
              "%s: bundle %d messages in order %s" % (label, index, kinds))
        check(messages[-1][1] == ["fseq", index + 1], "%s: bundle %d fseq %s" % (label, index, messages[-1][1]))
        active = [t for t in frame["touches"] if t["phase"] not in ("ended", "cancelled")]
        check(messages[1][1][1:] == [t["id"] for t in active],
              "%s: bundle %d alive %s for touches %s" % (label, index, messages[1][1][1:], [t["id"] for t in active]))
        sets = {args[1]: args[2:] for _, args in messages if args[0] == "set"}
        for t in active:
            x, y = area(t)
            got = sets.get(t["id"])
            rx, ry = rounding(area, t)
            check(got is not None and abs(got[0] - x) <= rx + 1e-7 and abs(got[1] - y) <= ry + 1e-7,
                  "%s: bundle %d set of touch %d is %s, the daemon says %.9f %.9f" % (label, index, t["id"], got, x, y))
            check(got is not None and all(math.isfinite(v) for v in got), "%s: non-finite set values" % label)
    return with_python_osc


def check_points(events, frames, area, width, height, label):
    """Qt's touch points are the daemon's touches, at their positions within float32 precision."""
    positions = {}
    last = {}
    for frame in frames:
        for t in frame["touches"]:
            x, y = area(t)
            rx, ry = rounding(area, t)
            # Qt's float precision plus the JSON rounding, in window pixels.
            p = (x * width, y * height, 1e-3 + rx * width, 1e-3 + ry * height)
            positions.setdefault(t["id"], []).append(p)
            if t["phase"] not in ("ended", "cancelled"):
                last[t["id"]] = p
    points = [e for e in events if e["kind"] == "point"]
    pressed = {e["id"] for e in points if e["event"] == "pressed"}
    released = {e["id"]: e for e in points if e["event"] == "released"}
    check(pressed == set(last), "%s: Qt pressed %s, the daemon's touches were %s" % (label, sorted(pressed), sorted(last)))
    check(set(released) == set(last), "%s: Qt released %s" % (label, sorted(released)))
    for e in points:
        candidates = positions.get(e["id"], [])
        check(any(abs(e["x"] - x) <= tx and abs(e["y"] - y) <= ty for x, y, tx, ty in candidates),
              "%s: Qt point %d at (%.4f, %.4f) (%s) is no daemon position of that touch" % (
                  label, e["id"], e["x"], e["y"], e["event"]))
    for ident, e in released.items():
        if ident in last:
            x, y, tx, ty = last[ident]
            check(abs(e["x"] - x) <= tx and abs(e["y"] - y) <= ty,
                  "%s: Qt released %d at (%.4f, %.4f), the daemon last had (%.4f, %.4f)" % (
                      label, ident, e["x"], e["y"], x, y))
    return len(points)


def spread_and_angles(touches, area, width, height):
    """Mean distance to the centroid and each touch's angle about it, in Qt's window pixels."""
    points = {t["id"]: (area(t)[0] * width, area(t)[1] * height) for t in touches}
    cx = sum(p[0] for p in points.values()) / len(points)
    cy = sum(p[1] for p in points.values()) / len(points)
    spread = sum(math.hypot(x - cx, y - cy) for x, y in points.values()) / len(points)
    return spread, {i: math.atan2(y - cy, x - cx) for i, (x, y) in points.items()}


def check_pinches(events, frames, gestures, area, width, height, label):
    """Each pinch Qt recognised against the daemon's pinchRotate segment over the same touches.

    Qt's PinchHandler (dragThreshold 0) activates on the first frame in which a finger of a two-finger
    set is away from where it was pressed (the frame the set came together in, when one finger had
    already moved), and measures scale and rotation from there; the daemon measures its segment from the
    frame the finger set came together. So the daemon's end-of-segment scale and rotation are taken
    back to Qt's starting frame with the daemon's own definitions over its touches (scale: mean
    distance to the centroid; rotation: mean angle change about it), then compared with Qt's.
    """
    qt = []
    for e in events:
        if e["kind"] == "pinch" and e["event"] == "ended":
            qt.append((e["scale"], e["rotation"]))
    segments = []
    reference = activation = None
    pressed_at = {}
    for frame in frames:
        active = [t for t in frame["touches"] if t["phase"] not in ("ended", "cancelled")]
        for t in active:
            pressed_at.setdefault(t["id"], (t["x"], t["y"]))
        ids = sorted(t["id"] for t in active)
        if reference is None or reference[0] != ids:
            if reference is not None and len(reference[0]) >= 2 and activation is not None:
                segments.append((reference, activation, frame["time"]))
            reference, activation = (ids, active, frame["time"]), None
        if activation is None and len(ids) >= 2 and any(pressed_at[t["id"]] != (t["x"], t["y"]) for t in active):
            activation = (active, frame["time"])
    results = []
    check(len(qt) == len(segments), "%s: Qt recognised %d pinches, the daemon's touches make %d" % (
        label, len(qt), len(segments)))
    for (qt_scale, qt_rotation), ((ids, start_touches, start), (act_touches, act_time), end_time) in zip(qt, segments):
        # The daemon ends the segment when the finger set changes, or a debounce interval later.
        end = [g for g in gestures if g.get("mode") == "pinchRotate" and g["phase"] in ("ended", "cancelled")
               and g["time"] >= act_time][:1]
        if not check(end, "%s: no daemon pinchRotate ends after %.3f" % (label, act_time)):
            continue
        s_ref, a_ref = spread_and_angles(start_touches, area, width, height)
        s_act, a_act = spread_and_angles(act_touches, area, width, height)
        turned = sum(math.remainder(a_act[i] - a_ref[i], 2 * math.pi) for i in a_ref) / len(a_ref)
        expected_scale = end[-1]["scale"] * s_ref / s_act
        expected_rotation = math.degrees(end[-1]["rotation"] - turned)
        error = abs(qt_scale / expected_scale - 1)
        check(error <= 0.05, "%s: Qt pinch scale %.4f, the daemon's %.4f (%.1f %% apart)" % (
            label, qt_scale, expected_scale, 100 * error))
        if abs(expected_rotation) >= 5:
            check(qt_rotation * expected_rotation > 0
                  and abs(qt_rotation - expected_rotation) <= 0.05 * abs(expected_rotation) + 1,
                  "%s: Qt pinch rotation %.2f deg, the daemon's %.2f deg" % (label, qt_rotation, expected_rotation))
        else:
            check(abs(qt_rotation) < 5, "%s: Qt pinch rotated %.2f deg, the daemon %.2f" % (
                label, qt_rotation, expected_rotation))
        results.append((qt_scale, expected_scale, qt_rotation, expected_rotation))
    return results


# --- runs --------------------------------------------------------------------------------------


def run_daemon(args, workdir, recording, targets, after_subscribe=None, subscribers=1):
    """multitouchd --replay with a [tuio] configuration; returns the monitor's messages."""
    config = os.path.join(workdir, "tuio.toml")
    with open(config, "w") as f:
        f.write("[tuio]\ntargets = [%s]\n" % ", ".join('"127.0.0.1:%d"' % p for p in targets))
    sock = os.path.join(workdir, "daemon.sock")
    log = os.path.join(workdir, "daemon.log")
    daemon = subprocess.Popen(
        [args.daemon, "--config", config, "--socket", sock, "--no-devices", "--replay", recording,
         "--wait-for-subscribers", str(subscribers)], stderr=open(log, "w"))
    monitor = None
    try:
        wait_for(lambda: os.path.exists(sock), 10, "the daemon's socket")
        if after_subscribe:
            after_subscribe(sock)
        monitor_out = os.path.join(workdir, "monitor.jsonl")
        monitor = subprocess.Popen(
            [args.ctl, "monitor", "--socket", sock, "--json", "--streams", "touches", "gestures", "devices"],
            stdout=open(monitor_out, "w"))
        wait_for(lambda: "replay: finished" in read(log), 60, "the replay to finish")
        # The receivers read what is already on their sockets: wait until their logs stop growing.
        settle([os.path.join(workdir, f) for f in os.listdir(workdir) if f.startswith("qt-") and f.endswith(".log")])
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(10)
        if monitor:
            monitor.wait(10)
    return [json.loads(line) for line in read(monitor_out).splitlines() if line.strip()]


def whole_device(args, recording):
    label = os.path.basename(recording)
    width, height = window_for(*device_size(args.ctl, recording))
    with tempfile.TemporaryDirectory(prefix="tuio-qt-") as workdir:
        ports = [free_udp_port(), free_udp_port()]
        points_app = QtApp(args.qml, ports[0], width, height, workdir, "qt-points", "points")
        pinch_app = QtApp(args.qml, ports[1], width, height, workdir, "qt-pinch", "pinch")
        receiver = Receiver()
        try:
            messages = run_daemon(args, workdir, recording, ports + [receiver.port])
        finally:
            points_app.stop()
            pinch_app.stop()
            receiver.stop()
        device, frames, gestures = frames_of(messages)
        check(device is not None and frames, "%s: the monitor saw no touches" % label)

        def area(t):
            return t["x"] / device["width"], t["y"] / device["height"]

        decoded = check_bundles(receiver.datagrams, frames, area, label)
        points = check_points(points_app.events(), frames, area, width, height, label)
        pinches = check_pinches(pinch_app.events(), frames, gestures, area, width, height, label)
        print("%s: %d bundles (%d also read by python-osc), %d frames; Qt %dx%d reported %d point events; pinches %s" % (
            label, len(receiver.datagrams), decoded, len(frames), width, height, points,
            ", ".join("Qt %.3f / daemon %.3f, %.1f / %.1f deg" % p for p in pinches) or "none"))
        return pinches


REGIONS = [  # id, rect (mm on tap-and-pinch.evemu's 100 x 60 mm screen), z, Qt window
    ("map", (0, 10, 100, 50), 1, (600, 300)),
    ("toolbar", (0, 0, 100, 10), 2, (600, 60)),
]


def regions(args):
    """Two unmodified Qt programs share one screen: each behind `multitouchctl tuio --region` on its part."""
    recording = os.path.join(ROOT, "clients", "examples", "regions", "tap-and-pinch.evemu")
    with tempfile.TemporaryDirectory(prefix="tuio-regions-") as workdir:
        apps, forwarders = {}, []
        try:
            for name, rect, z, (width, height) in REGIONS:
                port = free_udp_port()
                apps[name] = (QtApp(args.qml, port, width, height, workdir, "qt-" + name, "points"), port)

            def start_forwarders(sock):
                for name, rect, z, _ in REGIONS:
                    forwarders.append(subprocess.Popen(
                        [args.ctl, "tuio", "--once", "--socket", sock, "--to", "127.0.0.1:%d" % apps[name][1],
                         "--region", "%s:%s" % (name, ",".join(str(v) for v in rect)), "--z", str(z)],
                        stderr=open(os.path.join(workdir, "tuio-%s.log" % name), "w")))

            messages = run_daemon(args, workdir, recording, [], start_forwarders, subscribers=3)
            for forwarder in forwarders:
                forwarder.wait(10)
        finally:
            for app, _ in apps.values():
                app.stop()
        device, frames, _ = frames_of(messages)
        began = {}
        for frame in frames:
            for t in frame["touches"]:
                began.setdefault(t["id"], (t["x"], t["y"]))
        for name, (x0, y0, w, h), z, (width, height) in REGIONS:
            mine = {i for i, (x, y) in began.items() if x0 <= x < x0 + w and y0 <= y < y0 + h}
            own = [dict(f, touches=[t for t in f["touches"] if t["id"] in mine]) for f in frames]
            own = [f for f in own if f["touches"]]

            def area(t, x0=x0, y0=y0, w=w, h=h):
                return (t["x"] - x0) / w, (t["y"] - y0) / h

            events = apps[name][0].events()
            count = check_points(events, own, area, width, height, "region " + name)
            got = sorted({e["id"] for e in events if e["kind"] == "point"})
            check(got == sorted(mine), "region %s: Qt got touches %s, its own are %s" % (name, got, sorted(mine)))
            print("region %s (%s, %dx%d window): Qt got touches %s of %s, %d point events" % (
                name, (x0, y0, w, h), width, height, got, sorted(began), count))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--daemon", default=os.path.join(ROOT, ".build", "debug", "multitouchd"))
    parser.add_argument("--ctl", default=os.path.join(ROOT, ".build", "debug", "multitouchctl"))
    parser.add_argument("--qml", default=shutil.which("qml6") or "/usr/lib/qt6/bin/qml")
    parser.add_argument("--regions", action="store_true", help="also the two-program region check")
    args = parser.parse_args()
    if not os.access(args.qml, os.X_OK):
        raise SystemExit("qt_check: no Qt qml runtime at %s (Debian: qml-qt6 qml6-module-qtquick)" % args.qml)
    pinches = whole_device(args, os.path.join(FIXTURES, "touchscreen-pinch-rotate.evemu"))
    check(pinches, "touchscreen-pinch-rotate: Qt recognised no pinch")
    whole_device(args, os.path.join(FIXTURES, "touchscreen-map-tour.evemu"))
    # A palm: the daemon cancels touch 2 mid-pinch; it leaves `alive` in that frame and Qt releases it.
    whole_device(args, os.path.join(FIXTURES, "touchscreen-palm.evemu"))
    if args.regions:
        regions(args)
    if failures:
        print("qt_check: %d failure(s)" % len(failures))
        return 1
    print("qt_check: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
