#!/usr/bin/env python3
"""Print multitouchd's gestures, one line each: python3 print_gestures.py [SOCKET]

Pipes well: `print_gestures.py | head -5` ends quietly once head has its lines.
"""

import math
import os
import sys

try:
    import multitouchd_client  # noqa: F401  (installed: pip, or the Debian package)
except ImportError:  # run from the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from multitouchd_client import DEFAULT_SOCKET, Client  # noqa: E402
from multitouchd_client.script import run  # noqa: E402


def describe(m):
    t = m["type"]
    if t == "gesture":
        return "%.6f dev %d %s %s fingers=%d centroid=(%.1f, %.1f) translation=(%.1f, %.1f) scale=%.3f rotation=%.1f°" % (
            m["time"], m["device"], m["mode"], m["phase"], m["fingers"], m["centroid"][0], m["centroid"][1],
            m["translation"][0], m["translation"][1], m["scale"], math.degrees(m["rotation"]))
    if t in ("tap", "doubleTap", "longPress"):
        extra = " count=%d" % m["tapCount"] if t == "tap" else ""
        phase = " " + m["phase"] if t == "longPress" else ""
        return "%.6f dev %d %s%s%s at (%.1f, %.1f)" % (m["time"], m["device"], t, phase, extra, m["location"][0], m["location"][1])
    if t == "session":
        return "%.6f dev %d session %d %s" % (m["time"], m["device"], m["session"], m["phase"])
    if t == "deviceAdded":
        return "device %d added: %s" % (m["device"]["id"], m["device"]["name"])
    if t == "deviceRemoved":
        return "device %d removed (%s)" % (m["device"], m["reason"])
    if t == "dropped":
        return "dropped %d %s: %s" % (m["count"], m["unit"], m["reason"])
    if t == "error":
        return "error %s: %s" % (m["code"], m["message"])
    return None


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_SOCKET
    with Client(path) as client:
        print("connected to %s, %d device(s)" % (client.hello["daemon"], len(client.devices)), flush=True)
        client.subscribe(streams=["gestures", "devices"])
        for message in client.messages():
            line = describe(message)
            if line:
                print(line, flush=True)


if __name__ == "__main__":
    run(main)
