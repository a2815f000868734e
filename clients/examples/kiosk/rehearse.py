#!/usr/bin/env python3
"""The kiosk rehearsal of docs/KIOSK.md: the real daemon replays kiosk.evemu with kiosk.toml, and the
four programs (map.py, pin.py, shell.py, and an unmodified Qt Quick app reading TUIO) run against it
as they would on the kiosk; then it prints, per program, what it received.

    python3 rehearse.py [--bin DIR] [--workdir DIR] [--tuio-port PORT] [--speed X]

--bin: where multitouchd and multitouchctl are (default: on PATH, else this checkout's swift build).
The daemon listens on a socket of its own in the work directory (default: a fresh /tmp directory,
kept, with every log), waits for the regions map, pin, shell and qt (--wait-for-regions) and exits when
the recording is done (--exit-when-done). The Qt app is Qt's own `qml` runner with the TuioTouch plugin
(Debian 12: qml-qt6 and qml6-module-qtquick; without it the Qt app is left out and said so). Between
the daemon and the app, the rehearsal passes the region's datagrams on and keeps a copy, to show what
the app was sent. Exit status 0 when every program ran to the end.
"""

import argparse
import json
import os
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)
from kiosk_program import PIN_PAD, QT_APP  # noqa: E402

# The Qt app: the checkout's QML file, or the Debian package's copy.
QML_APPS = [os.path.join(ROOT, "checks", "tuio", "touches.qml"), "/usr/share/multitouchd/examples/tuio/touches.qml"]
QML_RUNNERS = ["/usr/lib/qt6/bin/qml", "qml6", "qml"]
REGIONS = "map,pin,shell,qt"


def binaries(given):
    """multitouchd and multitouchctl: in `given`, else on PATH, else this checkout's debug build."""
    if given:
        found = os.path.join(given, "multitouchd"), os.path.join(given, "multitouchctl")
    elif shutil.which("multitouchd") and shutil.which("multitouchctl"):
        found = shutil.which("multitouchd"), shutil.which("multitouchctl")
    else:
        found = os.path.join(ROOT, ".build", "debug", "multitouchd"), os.path.join(ROOT, ".build", "debug", "multitouchctl")
    for program in found:
        if not os.access(program, os.X_OK):
            raise SystemExit("rehearse: no %s (install the package, or `swift build` in the checkout and put "
                             ".build/debug on PATH, or give --bin DIR)" % program)
    return found


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, seconds, what):
    """Polls `predicate` until it holds; `seconds` only bounds a hang (a process that never starts)."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit("rehearse: timed out waiting for " + what)
        time.sleep(0.05)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return ""


class Relay(threading.Thread):
    """Receives the qt region's datagrams on the configured target port, keeps each one, and passes it
    on to the Qt app's port."""

    def __init__(self, port, to):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self.sock.bind(("127.0.0.1", port))
        except OSError as error:
            raise SystemExit("rehearse: cannot receive the qt region's TUIO on UDP port %d (%s): give "
                             "--tuio-port a free one" % (port, error))
        self.to = to
        self.datagrams = []
        self.running = True
        self.start()

    def run(self):
        while self.running:
            if select.select([self.sock], [], [], 0.1)[0]:
                data = self.sock.recv(65536)
                self.datagrams.append(data)
                if self.to:
                    self.sock.sendto(data, ("127.0.0.1", self.to))

    def stop(self):
        self.running = False
        self.join()
        self.sock.close()


# --- what each program received ----------------------------------------------------------------


def inside(rect, x, y):
    return rect[0] <= x < rect[0] + rect[2] and rect[1] <= y < rect[1] + rect[3]


def socket_program(path):
    """A socket program's log: its messages, predictions and frames, and the touches it was given
    (id -> where it began)."""
    messages = [json.loads(line) for line in read(path).splitlines() if line.strip()]
    began = {}
    predicted = coalesced = predicted_matrices = 0
    for m in messages:
        if m["type"] == "touches":
            for t in m["touches"]:
                began.setdefault(t["id"], (t["x"], t["y"]))
                predicted += "predicted" in t
                coalesced += len(t.get("coalesced", []))
        elif m["type"] == "gesture":
            predicted_matrices += "predictedMatrix" in m
    return {"messages": messages, "count": len(messages), "touches": began, "predicted": predicted,
            "predictedMatrices": predicted_matrices, "coalesced": coalesced}


def osc_bundle(data):
    """The messages of one OSC 1.0 bundle: (address, [arguments])."""
    def string(at):
        end = data.index(b"\0", at)
        return data[at:end].decode(), (end // 4 + 1) * 4
    messages = []
    at = 16  # "#bundle\0" and the time tag
    while at < len(data):
        size = struct.unpack(">i", data[at:at + 4])[0]
        element, at = data[at + 4:at + 4 + size], at + 4 + size
        address, p = 0, 0
        end = element.index(b"\0")
        address, p = element[:end].decode(), (end // 4 + 1) * 4
        end = element.index(b"\0", p)
        tags, p = element[p:end].decode(), (end // 4 + 1) * 4
        args = []
        for tag in tags[1:]:
            if tag == "s":
                end = element.index(b"\0", p)
                args.append(element[p:end].decode())
                p = (end // 4 + 1) * 4
            else:
                args.append(struct.unpack(">" + tag, element[p:p + 4])[0])
                p += 4
        messages.append((address, args))
    return messages


def qt_app(datagrams, log):
    """What the Qt app was sent (TUIO sessions and where each began, in screen pixels) and its pinches."""
    began = {}
    for data in datagrams:
        for _, args in osc_bundle(data):
            if args and args[0] == "set":
                x, y = args[2], args[3]
                began.setdefault(args[1], (QT_APP[0] + x * QT_APP[2], QT_APP[1] + y * QT_APP[3]))
    pinches = []
    for line in log.splitlines():
        at = line.find('{"kind"')
        if at >= 0:
            event = json.loads(line[at:])
            if event["kind"] == "pinch" and event["event"] == "ended":
                pinches.append(event)
    return {"count": len(datagrams), "touches": began, "pinches": pinches}


def pin_touches(program):
    """Touches that began on the PIN pad, or carry a secure id (2^32 and up: an exclusive region's)."""
    return sorted(i for i, (x, y) in program["touches"].items() if inside(PIN_PAD, x, y) or i >= 1 << 32)


def summary(results):
    lines = []
    for name in ("map", "pin", "shell"):
        p = results[name]
        lines.append("%-5s  %4d messages, %3d touches, %4d predictions (+%d predicted matrices), %4d coalesced "
                     "samples, PIN touches seen: %d" % (name, p["count"], len(p["touches"]), p["predicted"],
                                                         p["predictedMatrices"], p["coalesced"], len(pin_touches(p))))
    qt = results.get("qt")
    if qt:
        pinch = ", ".join("scale %.3f" % e["scale"] for e in qt["pinches"]) or "none"
        lines.append("qt     %4d TUIO datagrams, %3d touches, pinch: %s, PIN touches seen: %d" % (
            qt["count"], len(qt["touches"]), pinch, len(pin_touches(qt))))
    return "\n".join(lines)


# --- the run -----------------------------------------------------------------------------------


def rehearse(bin_dir=None, workdir=None, tuio_port=3334, speed=1.0, qml=None, grant_uid=None):
    """Runs the rehearsal; returns {program: what it received} and the work directory. `grant_uid`: a
    user that gets the shell's rights in the copied configuration (a rehearsal run by one user who is
    neither root nor in kiosk-shell: its shell would see nothing, rightly)."""
    daemon, ctl = binaries(bin_dir)
    workdir = workdir or tempfile.mkdtemp(prefix="kiosk-")
    os.makedirs(workdir, exist_ok=True)
    config = os.path.join(workdir, "kiosk.toml")
    with open(os.path.join(HERE, "kiosk.toml")) as f:
        text = f.read()
    with open(config, "w") as f:
        f.write(text.replace('target = "127.0.0.1:3334"', 'target = "127.0.0.1:%d"' % tuio_port))
        if grant_uid is not None:
            f.write('[[access.grant]]\nuid = %d\nrights = ["observe", "regions", "transform", "cover"]\n'
                    'z_band = [0, 1000]\n' % grant_uid)
    sock = os.path.join(workdir, "kiosk.sock")
    processes = []
    qml = qml or next((q for q in QML_RUNNERS if shutil.which(q) or os.access(q, os.X_OK)), None)
    qml_app = next((q for q in QML_APPS if os.path.exists(q)), None)
    relay = None
    qt = None
    try:
        if qml and qml_app:
            qt_port = free_udp_port()
            env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_RUNTIME_DIR=workdir)
            qt = subprocess.Popen(
                [shutil.which(qml) or qml, "-platform", "offscreen", "-plugin", "TuioTouch:udp=%d" % qt_port,
                 qml_app, "--", str(QT_APP[2]), str(QT_APP[3]), "pinch"],
                stdout=open(os.path.join(workdir, "qt.out"), "w"), stderr=open(os.path.join(workdir, "qt.log"), "w"),
                env=env)
            processes.append(qt)
            wait_for(lambda: '"kind":"ready"' in read(os.path.join(workdir, "qt.log")), 30, "the Qt app")
            relay = Relay(tuio_port, qt_port)
        else:
            print("rehearse: no Qt qml runner or app found: the Qt app is left out", flush=True)
            relay = Relay(tuio_port, None)
        d = subprocess.Popen(
            [daemon, "--config", config, "--socket", sock, "--no-devices", "--replay",
             os.path.join(HERE, "kiosk.evemu"), "--speed", str(speed), "--wait-for-regions", REGIONS,
             "--exit-when-done"], stderr=open(os.path.join(workdir, "daemon.log"), "w"))
        processes.append(d)
        wait_for(lambda: os.path.exists(sock) or d.poll() is not None, 30, "the daemon's socket")
        programs = {}
        regions = ""
        for name in ("map", "pin", "shell"):
            programs[name] = subprocess.Popen(
                [sys.executable, os.path.join(HERE, name + ".py"), "--socket", sock, "--log",
                 os.path.join(workdir, name + ".jsonl")],
                stdout=open(os.path.join(workdir, name + ".out"), "w"), stderr=subprocess.STDOUT)
            processes.append(programs[name])
        # Once every region is in force the replay starts: who owns which area then (as root, every
        # region; as another user, that user's).
        log = os.path.join(workdir, "daemon.log")
        wait_for(lambda: "replay: starting" in read(log) or d.poll() is not None, 60, "the programs' regions")
        regions = subprocess.run([ctl, "regions", "--socket", sock], capture_output=True, text=True).stdout
        status = d.wait(timeout=300)
        failed = ["multitouchd (exit %d)" % status] if status else []
        for name, p in programs.items():
            if p.wait(timeout=60):
                failed.append("%s (exit %d)" % (name, p.returncode))
        if qt:
            # The app has had every datagram (loopback delivers at once); give its event loop a moment.
            size = -1
            while size != len(read(os.path.join(workdir, "qt.log"))):
                size = len(read(os.path.join(workdir, "qt.log")))
                time.sleep(0.5)
    finally:
        for p in processes:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
        if relay:
            relay.stop()
    results = {name: socket_program(os.path.join(workdir, name + ".jsonl")) for name in ("map", "pin", "shell")}
    if qt:
        results["qt"] = qt_app(relay.datagrams, read(os.path.join(workdir, "qt.log")))
    results["failed"] = failed
    results["datagrams"] = relay.datagrams
    results["regions"] = regions
    return results, workdir


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", help="directory of multitouchd and multitouchctl")
    parser.add_argument("--workdir", help="where the socket and the logs go (default: a new /tmp directory)")
    parser.add_argument("--tuio-port", type=int, default=3334, help="the qt region's target port (kiosk.toml: 3334)")
    parser.add_argument("--speed", type=float, default=1.0, help="replay speed")
    parser.add_argument("--grant-me", action="store_true",
                        help="give this user the shell's rights (when it is neither root nor in kiosk-shell)")
    args = parser.parse_args()
    results, workdir = rehearse(args.bin, args.workdir, args.tuio_port, args.speed,
                                grant_uid=os.geteuid() if args.grant_me else None)
    print("multitouchctl regions, while it played:\n" + results["regions"].rstrip())
    print(summary(results))
    print("logs: %s" % workdir)
    for failure in results["failed"]:
        print("rehearse: %s did not end well" % failure)
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
