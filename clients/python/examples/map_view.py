#!/usr/bin/env python3
"""A map you pan, zoom and rotate with your fingers: draws content with the daemon's `matrix`.

    python3 map_view.py [--text] [SOCKET]

The map covers the first device's published space (its width x height). Every gesture, doubleTap
and transform message carries the device's cumulative matrix; drawing the map's points through it is
all the code there is (no gesture math here). With Tk (Debian: python3-tk) it opens a window that
watches the socket through `fileno()`; with --text, or without Tk, it prints where the map's corners
are after each update (`corners [[x, y], ...]`, in the device's space).
"""

import json
import math
import os
import sys

try:
    import multitouchd_client  # noqa: F401
except ImportError:  # run from the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from multitouchd_client import DEFAULT_SOCKET, Affine, Client, Device, DeviceAdded, DoubleTap, Gesture, Transform  # noqa: E402
from multitouchd_client import ConnectionClosed  # noqa: E402
from multitouchd_client.script import run  # noqa: E402


class MapModel:
    """The map's content and its current transform, per device (one device drives the map)."""

    def __init__(self, width=100.0, height=60.0):
        self.device = None
        self.matrix = Affine.identity()
        self.resize(width, height)

    def resize(self, width, height):
        self.width, self.height = width, height
        self.corners = [(0, 0), (width, 0), (width, height), (0, height)]
        # A grid every tenth of the map and a few landmarks, in content coordinates.
        self.lines = [((width * i / 10, 0), (width * i / 10, height)) for i in range(11)]
        self.lines += [((0, height * i / 10), (width, height * i / 10)) for i in range(11)]
        self.landmarks = [("harbour", width * 0.2, height * 0.7), ("castle", width * 0.5, height * 0.3),
                          ("station", width * 0.8, height * 0.6)]

    def update(self, event):
        """Takes a typed message; returns True when the map moved."""
        if isinstance(event, DeviceAdded) and self.device is None:
            self.device = event.device.id
            self.resize(event.device.width, event.device.height)
            return True
        if isinstance(event, (Gesture, DoubleTap, Transform)) and event.device == self.device:
            self.matrix = event.matrix
            return True
        return False

    def screen_corners(self):
        return [list(self.matrix.apply(x, y)) for x, y in self.corners]


def run_text(client, model):
    for event in client.events():
        if model.update(event):
            if isinstance(event, Gesture):
                print("gesture %s %s scale=%.3f rotation=%.1f°" % (
                    event.mode.value, event.phase.value, event.matrix.scale, math.degrees(event.matrix.rotation)))
            print("corners " + json.dumps(model.screen_corners()), flush=True)
        if type(event).__name__ == "DeviceRemoved" and event.device == model.device:
            return 0
    return 0


def run_tk(client, model, tk):
    root = tk.Tk()
    root.title("multitouchd map")
    canvas = tk.Canvas(root, width=800, height=480, background="#eef3f7")
    canvas.pack(fill="both", expand=True)

    def redraw():
        canvas.delete("all")
        # The window shows the device's whole published space, scaled to fit.
        view = min(canvas.winfo_width() / model.width, canvas.winfo_height() / model.height)
        to_window = model.matrix.then(Affine(view, 0, 0, view, 0, 0))
        corners = [c for x, y in model.corners for c in to_window.apply(x, y)]
        canvas.create_polygon(*corners, fill="#cfe3c8", outline="#5a7")
        for (x0, y0), (x1, y1) in model.lines:
            canvas.create_line(*to_window.apply(x0, y0), *to_window.apply(x1, y1), fill="#9bb")
        for name, x, y in model.landmarks:
            sx, sy = to_window.apply(x, y)
            canvas.create_oval(sx - 4, sy - 4, sx + 4, sy + 4, fill="#c33")
            canvas.create_text(sx + 8, sy, text=name, anchor="w")

    def readable(_fd, _mask):
        try:
            events = client.read_available()
        except ConnectionClosed:
            root.destroy()
            return
        if any([model.update(client_event) for client_event in map(multitouchd_client.parse, events)]):
            redraw()

    root.tk.createfilehandler(client.fileno(), tk.READABLE, readable)
    canvas.bind("<Configure>", lambda _e: redraw())
    # Messages already read with the hello or the subscribe reply wait in the client's buffer.
    root.after_idle(lambda: readable(None, None))
    root.mainloop()
    return 0


def main():
    args = [a for a in sys.argv[1:] if a != "--text"]
    text = "--text" in sys.argv[1:]
    tk = None
    if not text:
        try:
            import tkinter as tk
        except ImportError:
            print("map_view.py: no tkinter (Debian: apt-get install python3-tk); printing instead", file=sys.stderr)
    with Client(args[0] if args else DEFAULT_SOCKET) as client:
        model = MapModel()
        for device in client.hello["devices"]:
            model.update(DeviceAdded(Device.from_dict(device), {}))
        client.subscribe(streams=["gestures", "devices"])
        return run_text(client, model) if tk is None else run_tk(client, model, tk)


if __name__ == "__main__":
    run(main)
