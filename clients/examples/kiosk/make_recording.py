#!/usr/bin/env python3
"""Writes kiosk.evemu, the scripted rehearsal of docs/KIOSK.md (run it to regenerate; the output is
the same bytes every time).

A 16:9 touchscreen of 344 x 194 mm (10 units per mm, ten slots) that the kiosk configuration maps
onto a 1920 x 1080 output, so every position below is in pixels. After an empty first frame (the
replay's origin) and half a second, at 100 frames a second:

  1. a fling on the map (one finger, fast to the right, lifted while moving: momentum follows);
  2. a pinch on the map (two fingers spreading);
  3. four PIN digits on the exclusive pad, the third while a finger pans the map;
  4. a pinch in the Qt app's area (two fingers spreading);
  5. a double tap on the map (a zoom by two about it).
"""

import os

WIDTH_MM, HEIGHT_MM, UNITS_PER_MM = 344, 194, 10
OUTPUT = (1920, 1080)
SLOT, TRACKING_ID, X, Y, PRESSURE = 0x2F, 0x39, 0x35, 0x36, 0x3A
BTN_TOUCH = 0x14A

HEADER = """# EVEMU 1.3
# The kiosk rehearsal of docs/KIOSK.md, written by clients/examples/kiosk/make_recording.py.
N: multitouchd kiosk touchscreen
I: 0018 0eef 7224 0100
P: 02 00 00 00 00 00 00 00
B: 00 0b 00 00 00 00 00 00 00
""" + "".join("B: 01 %s 00 00 00 00 00 00\n" % ("00 04" if i == 5 else "00 00") for i in range(13)) + """B: 02 00 00 00 00 00 00 00 00
B: 03 03 00 00 00 00 80 60 06
B: 04 00 00 00 00 00 00 00 00
B: 05 00 00 00 00 00 00 00 00
B: 11 00 00 00 00 00 00 00 00
B: 12 00 00 00 00 00 00 00 00
B: 14 00 00 00 00 00 00 00 00
B: 15 00 00 00 00 00 00 00 00
B: 15 00 00 00 00 00 00 00 00
A: 00 0 %(xmax)d 0 0 %(res)d
A: 01 0 %(ymax)d 0 0 %(res)d
A: 2f 0 9 0 0 0
A: 35 0 %(xmax)d 0 0 %(res)d
A: 36 0 %(ymax)d 0 0 %(res)d
A: 39 0 65535 0 0 0
A: 3a 0 255 0 0 0
""" % {"xmax": WIDTH_MM * UNITS_PER_MM - 1, "ymax": HEIGHT_MM * UNITS_PER_MM - 1, "res": UNITS_PER_MM}


class Script:
    def __init__(self):
        self.lines = []
        self.time = 1.0
        self.next_id = 100
        self.down = {}

    def ev(self, typ, code, value):
        self.lines.append("E: %.6f %04x %04x %d" % (self.time, typ, code, value))

    def units(self, px, py):
        """An output pixel to device units (the output mapping is the inverse of this)."""
        return (round(px / OUTPUT[0] * (WIDTH_MM * UNITS_PER_MM - 1)),
                round(py / OUTPUT[1] * (HEIGHT_MM * UNITS_PER_MM - 1)))

    def place(self, slot, px, py, new=False):
        self.ev(3, SLOT, slot)
        if new:
            self.ev(3, TRACKING_ID, self.next_id)
            self.next_id += 1
        x, y = self.units(px, py)
        self.ev(3, X, x)
        self.ev(3, Y, y)
        if new:
            self.ev(3, PRESSURE, 60)

    def frame(self, fingers):
        """Moves every finger in `fingers` ({slot: (x, y)}), lands new ones, lifts the ones left out,
        closes the frame and advances 10 ms."""
        for slot in sorted(self.down):
            if slot not in fingers:
                self.ev(3, SLOT, slot)
                self.ev(3, TRACKING_ID, -1)
        for slot, (px, py) in sorted(fingers.items()):
            self.place(slot, px, py, new=slot not in self.down)
        if bool(fingers) != bool(self.down):
            self.ev(1, BTN_TOUCH, 1 if fingers else 0)
        self.down = dict(fingers)
        self.ev(0, 0, 0)
        self.time += 0.010

    def idle(self, ms):
        """No change for `ms` (no frames: a touchscreen sends nothing while nothing touches it)."""
        self.time += ms / 1000


def main():
    s = Script()
    s.frame({})  # the replay's origin
    s.idle(500)
    # 1. A fling on the map: 1.2 px/ms to the right for 250 ms, lifted while moving.
    for i in range(26):
        s.frame({0: (500 + 12 * i, 200)})
    s.frame({})
    s.idle(800)
    # 2. A pinch on the map: two fingers 200 px apart spreading to 500 px over 400 ms.
    for i in range(41):
        spread = 100 + 150 * i / 40
        s.frame({0: (1000 - spread, 350), 1: (1000 + spread, 350)})
    s.frame({})
    s.idle(600)
    # 3. Four PIN digits on the pad at (1480, 300, 360, 480): 60 ms each, 300 ms apart; the third
    #    while a finger pans the map to the left of the pad.
    keys = [(1540, 380), (1660, 500), (1780, 620), (1660, 740)]
    for n, key in enumerate(keys):
        if n == 2:
            for i in range(12):
                s.frame({1: (900 - 10 * i, 150), **({0: key} if 3 <= i < 9 else {})})
            s.frame({})
        else:
            for _ in range(6):
                s.frame({0: key})
            s.frame({})
        s.idle(240)
    s.idle(400)
    # 4. A pinch in the Qt app's area (40, 620, 760, 420): 160 px apart spreading to 400 px over 500 ms.
    for i in range(51):
        spread = 80 + 120 * i / 50
        s.frame({0: (420 - spread, 830), 1: (420 + spread, 830)})
    s.frame({})
    s.idle(600)
    # 5. A double tap on the map at (1100, 250): two 40 ms taps 120 ms apart.
    for tap in range(2):
        for _ in range(4):
            s.frame({0: (1100, 250)})
        s.frame({})
        if tap == 0:
            s.idle(110)
    s.idle(1000)
    s.frame({})  # the end: the zoom's animation has played
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kiosk.evemu")
    with open(path, "w") as f:
        f.write(HEADER + "\n".join(s.lines) + "\n")
    print("wrote %s" % path)


if __name__ == "__main__":
    main()
