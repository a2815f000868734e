#!/usr/bin/env python3
"""The kiosk of docs/KIOSK.md end to end (issue 27 item 6): the real daemon with the document's exact
configuration (clients/examples/kiosk/kiosk.toml) replays the scripted recording (kiosk.evemu) to the
real programs (map.py, pin.py, shell.py on the Python client library, and an unmodified Qt Quick app
reading TUIO through Qt's TuioTouch plugin), through clients/examples/kiosk/rehearse.py, the command
the document tells an integrator to run. Then it checks what each program received:

- own touches only: the map's began in the map and not under the PIN pad or the Qt app; the Qt app's
  (the TUIO datagrams of the daemon's [[tuio.region]]) in its area; the shell's observer region sees
  the others' touches (it has `observe`), never the PIN pad's;
- predictions and frames on the map's region stream: predicted touches and matrices, coalesced
  samples, every routed message named "map"; the README's iPhone feel (momentum, the zoom by two);
- no PIN touch anywhere but the pad: not in the map's, the shell's or the Qt app's messages, not in
  the TUIO datagrams (by position and by id: the pad's touches are secure, ids from 2^32);
- the Qt app's pinch (Qt's PinchHandler) scales like the fingers;
- `multitouchctl regions` lists the four areas while it plays.

Prints per program: messages received, predictions received, PIN touches seen.

    python3 checks/kiosk/kiosk_check.py [BIN_DIR]

A rehearsal run by a user who is neither root nor in the group kiosk-shell gives that user the shell's
rights (its shell would otherwise see nothing, rightly); CI runs as root. Loopback UDP only.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "clients", "examples", "kiosk"))
import rehearse  # noqa: E402
from kiosk_program import PIN_PAD, QT_APP, SCREEN  # noqa: E402

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL: " + what)
    return condition


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    bin_dir = sys.argv[1] if len(sys.argv) > 1 else subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    qml = "/usr/lib/qt6/bin/qml"
    if not os.access(qml, os.X_OK):
        raise SystemExit("kiosk_check: no Qt qml runtime at %s (Debian: qml-qt6 qml6-module-qtquick)" % qml)
    grant = None
    if os.geteuid() != 0:
        grant = os.geteuid()
        print("kiosk_check: not root: this user gets the shell's rights in the rehearsal's configuration")
    workdir = tempfile.mkdtemp(prefix="kiosk-check-")
    results, workdir = rehearse.rehearse(bin_dir, workdir, tuio_port=free_udp_port(), qml=qml, grant_uid=grant)
    print("multitouchctl regions, while it played:\n" + results["regions"].rstrip())
    print(rehearse.summary(results))
    check(not results["failed"], "every program ran to the end: %s" % results["failed"])
    # The page shows the configuration it tells the integrator to install: the same bytes.
    page = open(os.path.join(ROOT, "docs", "KIOSK.md"), encoding="utf-8").read()
    shipped = open(os.path.join(ROOT, "clients", "examples", "kiosk", "kiosk.toml"), encoding="utf-8").read()
    block = page.split("<!-- kiosk.toml:", 1)[-1].split("```toml\n", 1)[-1].split("```", 1)[0]
    check(block == shipped, "docs/KIOSK.md's configuration is clients/examples/kiosk/kiosk.toml")
    inside = rehearse.inside
    m, pin, shell, qt = results["map"], results["pin"], results["shell"], results.get("qt")
    check(qt is not None, "the Qt app ran")
    qt = qt or {"touches": {}, "pinches": [], "count": 0}

    # Own touches only.
    check(len(m["touches"]) == 6, "the map's touches: fling 1, pinch 2, pan 1, double tap 2 (%d)" % len(m["touches"]))
    check(all(inside(SCREEN, x, y) and not inside(PIN_PAD, x, y) and not inside(QT_APP, x, y)
              for x, y in m["touches"].values()), "the map's touches began on the map: %r" % m["touches"])
    routed = [x for x in m["messages"] if x["type"] in ("touches", "gesture", "tap", "doubleTap", "session")]
    check(routed and all(x.get("region") == "map" for x in routed), "every message of the map's stream is the map's")
    check(len(pin["touches"]) == 4 and all(inside(PIN_PAD, x, y) for x, y in pin["touches"].values()),
          "the PIN pad's four digits: %r" % pin["touches"])
    check(all(i >= 1 << 32 for i in pin["touches"]), "the PIN pad's touches are secure (ids from 2^32)")
    digits = sum(1 for x in pin["messages"] if x["type"] == "tap")
    check(digits == 4, "the PIN pad recognised 4 taps (%d)" % digits)
    check(len(qt["touches"]) == 2 and all(inside(QT_APP, x, y) for x, y in qt["touches"].values()),
          "the Qt app's two pinch fingers, in its area: %r" % qt["touches"])
    observed = {p: t for p, t in shell["touches"].items()}
    check(len(observed) == len(m["touches"]) + len(qt["touches"]),
          "the shell observes the map's and the Qt app's touches (%d)" % len(observed))
    check(all(x.get("role") == "observer" for x in shell["messages"] if x["type"] == "touches"),
          "the shell is an observer")

    # Predictions and frames on the map's region stream; the iPhone feel.
    check(m["predicted"] > 0 and m["predictedMatrices"] > 0, "the map's region stream carries predictions")
    check(m["coalesced"] > 0, "the map's region stream is frame-aligned (coalesced samples)")
    modes = {x["mode"] for x in m["messages"] if x["type"] == "gesture"}
    check({"momentum", "animatedZoom"} <= modes, "momentum and the double-tap zoom on the map: %r" % sorted(modes))
    def zoom(matrix):
        return (matrix[0] ** 2 + matrix[1] ** 2) ** 0.5
    taps = [x for x in m["messages"] if x["type"] == "doubleTap"]
    last = [x["matrix"] for x in m["messages"] if x["type"] == "gesture"][-1]
    check(len(taps) == 1 and abs(zoom(last) / zoom(taps[0]["matrix"]) - 2) < 1e-3,
          "the double tap zooms the map by two: %r after %r" % (last, [t["matrix"] for t in taps]))
    check(not any("predicted" in t for x in pin["messages"] if x["type"] == "touches" for t in x["touches"]),
          "predictions only for the client that asked")

    # No PIN touch anywhere but the pad.
    for name, program in (("map", m), ("shell", shell), ("qt", qt)):
        check(not rehearse.pin_touches(program), "%s saw PIN touches: %r" % (name, rehearse.pin_touches(program)))
    sessions = {args[1] for data in results["datagrams"] for _, args in rehearse.osc_bundle(data)
                if args and args[0] == "set"}
    check(len(sessions) == 2, "the TUIO datagrams carry the Qt app's two touches only: %r" % sorted(sessions))

    # The Qt app's pinch: 160 px spreading to 400 px (2.5), measured by Qt from its first movement.
    scales = [e["scale"] for e in qt["pinches"]]
    check(len(scales) == 1 and 2.0 < scales[0] < 2.6, "Qt recognised the pinch: %r" % scales)

    listed = results["regions"]
    for region in ("map:", "pin:", "shell:") + (("qt: configuration: tuio.region[1] for qt-app",) if os.geteuid() == 0 else ()):
        check(region in listed, "multitouchctl regions lists %s" % region)

    if failures:
        print("kiosk_check: %d failure(s); logs kept in %s" % (len(failures), workdir))
        return 1
    shutil.rmtree(workdir, ignore_errors=True)
    print("kiosk_check: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
