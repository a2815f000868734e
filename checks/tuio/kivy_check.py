#!/usr/bin/env python3
"""Kivy's own TUIO input provider (kivy.input.providers.tuio, what a Kivy app with `[input] tuio =
tuio,127.0.0.1:3333` runs) against `multitouchd --replay` with a [tuio] target: the touches it makes
are the daemon's (same ids, positions within float32, every touch began and ended). No window: the
provider is driven the way Kivy's event loop drives it (update() with a dispatch function), so no
display or GL is needed. Loopback only. Skips (exit 0, says so) when Kivy is not installed."""
import os
import sys
import threading
import time

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONFIG", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")  # Kivy logs through its own logger; a failure still raises
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qt_check  # noqa: E402  (the daemon runner and the checks)


def main():
    try:
        from kivy.input.providers.tuio import TuioMotionEventProvider
    except ImportError:
        print("kivy_check: SKIPPED (no kivy: apt install python3-kivy, or pip install kivy)")
        return 0
    import argparse
    import tempfile
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--daemon", default=os.path.join(qt_check.ROOT, ".build", "debug", "multitouchd"))
    parser.add_argument("--ctl", default=os.path.join(qt_check.ROOT, ".build", "debug", "multitouchctl"))
    args = parser.parse_args()
    recording = os.path.join(qt_check.FIXTURES, "touchscreen-map-tour.evemu")
    port = qt_check.free_udp_port()
    provider = TuioMotionEventProvider("tuio", "127.0.0.1:%d" % port)
    provider.start()
    events = []
    running = True

    def pump():
        while running:
            provider.update(lambda kind, touch: events.append((kind, touch.id, touch.sx, touch.sy)))
            time.sleep(0.005)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    try:
        with tempfile.TemporaryDirectory(prefix="tuio-kivy-") as workdir:
            messages = qt_check.run_daemon(args, workdir, recording, [port])
    finally:
        # Until the provider has turned every datagram into events (no new one for half a second).
        count, since = -1, time.monotonic()
        while time.monotonic() - since < 0.5:
            if len(events) != count:
                count, since = len(events), time.monotonic()
            time.sleep(0.05)
        running = False
        thread.join()
        provider.stop()
    device, frames, _ = qt_check.frames_of(messages)
    positions, ids = {}, set()
    for frame in frames:
        for t in frame["touches"]:
            ids.add(t["id"])
            # Kivy's y grows upwards: sy = 1 - TUIO y.
            # The JSON position is rounded (qt_check.rounding): TUIO's exact one agrees within that.
            rx, ry = qt_check.rounding(lambda p: (p["x"] / device["width"], p["y"] / device["height"]), t)
            positions.setdefault(t["id"], []).append((t["x"] / device["width"], 1 - t["y"] / device["height"],
                                                      1e-6 + rx, 1e-6 + ry))
    began = {int(i) for kind, i, _, _ in events if kind == "begin"}
    ended = {int(i) for kind, i, _, _ in events if kind == "end"}
    qt_check.check(began == ids, "kivy: began %s, the daemon's touches are %s" % (sorted(began), sorted(ids)))
    qt_check.check(ended == ids, "kivy: ended %s" % sorted(ended))
    for kind, i, sx, sy in events:
        qt_check.check(any(abs(sx - x) <= tx and abs(sy - y) <= ty for x, y, tx, ty in positions.get(int(i), [])),
                       "kivy: %s of touch %s at (%.6f, %.6f) is no daemon position" % (kind, i, sx, sy))
    print("kivy_check: Kivy's TUIO provider made %d events for %d daemon touches over %d frames" % (
        len(events), len(ids), len(frames)))
    if qt_check.failures:
        print("kivy_check: %d failure(s)" % len(qt_check.failures))
        return 1
    print("kivy_check: OK")
    return 0


if __name__ == "__main__":
    try:
        status = main()
    except Exception:  # Kivy's logger hooks tracebacks; print this one where the CI log shows it
        import traceback
        traceback.print_exc(file=sys.stdout)
        status = 1
    sys.exit(status)
