#!/usr/bin/env python3
"""Writes tap-and-pinch.evemu, the recording the region examples replay (run it to regenerate).

A 100 x 60 mm touchscreen (10 units per mm). After an empty first frame and 3 s without touches
(time for the example programs to declare their regions), two fingers pinch apart on the map area
while a third finger taps the toolbar along the top; a second later one finger pans the map.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from test_client import HEADER  # noqa: E402  (the Python tests' touchscreen description)

SLOT, TRACKING_ID, X, Y, BTN_TOUCH = 0x2F, 0x39, 0x35, 0x36, 0x14A


def main():
    lines = []
    t = [1.0]
    next_id = [1]

    def ev(typ, code, value):
        lines.append("E: %.6f %04x %04x %d" % (t[0], typ, code, value))

    def frame(advance_ms):
        ev(0, 0, 0)
        t[0] += advance_ms / 1000

    def down(slot, x_mm, y_mm):
        ev(3, SLOT, slot)
        ev(3, TRACKING_ID, next_id[0])
        next_id[0] += 1
        ev(3, X, round(x_mm * 10))
        ev(3, Y, round(y_mm * 10))

    def move(slot, x_mm, y_mm):
        ev(3, SLOT, slot)
        ev(3, X, round(x_mm * 10))
        ev(3, Y, round(y_mm * 10))

    def up(slot):
        ev(3, SLOT, slot)
        ev(3, TRACKING_ID, -1)

    frame(3000)  # the replay's origin, then the lead time
    # Map pinch (slots 0, 1) with a toolbar tap (slot 2) 30 ms in, lifted 50 ms later.
    down(0, 40, 35)
    down(1, 60, 35)
    ev(1, BTN_TOUCH, 1)
    frame(10)
    for i in range(1, 21):
        if i == 3:
            down(2, 20, 5)
        if i == 8:
            up(2)
        move(0, 40 - i, 35)
        move(1, 60 + i, 35)
        frame(10)
    up(0)
    up(1)
    ev(1, BTN_TOUCH, 0)
    frame(1000)
    # A one-finger pan on the map.
    down(0, 30, 40)
    ev(1, BTN_TOUCH, 1)
    frame(10)
    for i in range(1, 16):
        move(0, 30 + 2 * i, 40)
        frame(10)
    up(0)
    ev(1, BTN_TOUCH, 0)
    frame(0)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tap-and-pinch.evemu")
    with open(path, "w") as f:
        f.write(HEADER + "\n".join(lines) + "\n")
    print("wrote %s" % path)


if __name__ == "__main__":
    main()
