#!/usr/bin/env python3
"""Writes the guest checks' own evemu recordings (scripted finger input on two synthetic devices) and
the SYN_DROPPED flood parts. Usage: gen_recordings.py OUTDIR

Timestamps start at 1.000000: evemu-play only sleeps between events when the first timestamp is not 0
(evemu 2.7 treats t=0 as "no timing"); the flood file uses t=0 on purpose so it plays at full speed.
"""
import math
import os
import sys

EV_SYN, EV_KEY, EV_ABS, EV_MSC = 0, 1, 3, 4
BTN_LEFT, BTN_TOOL_FINGER, BTN_TOUCH, BTN_TOOL_DOUBLETAP, BTN_TOOL_TRIPLETAP = 0x110, 0x145, 0x14A, 0x14D, 0x14E
ABS_X, ABS_Y, ABS_SLOT, ABS_PX, ABS_PY, ABS_TID, ABS_PRESSURE = 0, 1, 0x2F, 0x35, 0x36, 0x39, 0x3A


def mask_lines(type_, codes, nbytes):
    mask = bytearray(nbytes)
    for c in codes:
        mask[c // 8] |= 1 << (c % 8)
    return ["B: %02x %s" % (type_, " ".join("%02x" % b for b in mask[i:i + 8])) for i in range(0, nbytes, 8)]


def header(name, ident, props, keys, axes):
    """axes: {code: (min, max, fuzz, flat, res)}"""
    lines = ["# EVEMU 1.3", "N: " + name, "I: " + " ".join("%04x" % v for v in ident)]
    p = bytearray(8)
    for b in props:
        p[b // 8] |= 1 << (b % 8)
    lines.append("P: " + " ".join("%02x" % b for b in p))
    types = {EV_SYN, EV_ABS} | ({EV_KEY} if keys else set())
    lines += mask_lines(0, types, 8)
    lines += mask_lines(1, keys, 96)
    lines += mask_lines(2, [], 8)
    lines += mask_lines(3, axes.keys(), 8)
    for t in (4, 5, 0x11, 0x12, 0x14, 0x15):
        lines += mask_lines(t, [], 8)
    for code in sorted(axes):
        lines.append("A: %02x %d %d %d %d %d" % ((code,) + axes[code]))
    return lines


class Script:
    """Protocol B frames with a clock in microseconds."""

    def __init__(self, t0=1_000_000, touchpad=False):
        self.t = t0
        self.lines = []
        self.slots = {}  # slot -> tracking id
        self.next_id = 1
        self.touchpad = touchpad

    def ev(self, type_, code, value):
        self.lines.append("E: %d.%06d %04x %04x %d" % (self.t // 1_000_000, self.t % 1_000_000, type_, code, value))

    def frame(self, fingers, dt_ms=10):
        """fingers: {slot: (x, y)} for contacts present in this frame; missing slots lift."""
        before = set(self.slots)
        for slot in sorted(set(fingers) | before):
            self.ev(EV_ABS, ABS_SLOT, slot)
            if slot not in fingers:
                self.ev(EV_ABS, ABS_TID, -1)
                del self.slots[slot]
                continue
            if slot not in self.slots:
                self.slots[slot] = self.next_id
                self.ev(EV_ABS, ABS_TID, self.next_id)
                self.next_id += 1
            x, y = fingers[slot]
            self.ev(EV_ABS, ABS_PX, int(round(x)))
            self.ev(EV_ABS, ABS_PY, int(round(y)))
        if fingers:
            first = fingers[min(fingers)]
            self.ev(EV_ABS, ABS_X, int(round(first[0])))
            self.ev(EV_ABS, ABS_Y, int(round(first[1])))
        if bool(fingers) != bool(before):
            self.ev(EV_KEY, BTN_TOUCH, 1 if fingers else 0)
        if self.touchpad and len(fingers) != len(before):
            tools = {1: BTN_TOOL_FINGER, 2: BTN_TOOL_DOUBLETAP, 3: BTN_TOOL_TRIPLETAP}
            if len(before) in tools:
                self.ev(EV_KEY, tools[len(before)], 0)
            if len(fingers) in tools:
                self.ev(EV_KEY, tools[len(fingers)], 1)
        self.ev(EV_SYN, 0, 0)
        self.t += dt_ms * 1000

    def wait(self, ms):
        self.t += ms * 1000


TOUCHSCREEN = header(
    "multitouchd guest touchscreen", (0x18, 0x1234, 0x5678, 1), [1], [BTN_TOUCH],
    {ABS_X: (0, 4095, 0, 0, 16), ABS_Y: (0, 4095, 0, 0, 16), ABS_SLOT: (0, 9, 0, 0, 0),
     ABS_PX: (0, 4095, 0, 0, 16), ABS_PY: (0, 4095, 0, 0, 16), ABS_TID: (0, 65535, 0, 0, 0)})

TOUCHPAD = header(
    "multitouchd guest clickpad", (0x11, 0x2, 0x7, 0x1b1), [0, 2],
    [BTN_LEFT, BTN_TOOL_FINGER, BTN_TOUCH, BTN_TOOL_DOUBLETAP, BTN_TOOL_TRIPLETAP],
    {ABS_X: (1266, 5676, 0, 0, 48), ABS_Y: (1096, 4758, 0, 0, 88), ABS_SLOT: (0, 2, 0, 0, 0),
     ABS_PX: (1266, 5676, 0, 0, 48), ABS_PY: (1096, 4758, 0, 0, 88), ABS_TID: (0, 65535, 0, 0, 0)})


def pinch_pan():
    """Two fingers pinch out and twist, one lifts (2 -> 1 pan), lands again (1 -> 2), all lift."""
    s = Script()
    cx, cy = 2000.0, 2000.0
    for i in range(30):
        r = 300 + 15 * i
        a = 0.01 * i
        s.frame({0: (cx + r * math.cos(a), cy + r * math.sin(a)), 1: (cx - r * math.cos(a), cy - r * math.sin(a))})
    for i in range(20):
        s.frame({0: (cx + 735 + 10 * i, cy + 100 + 5 * i)})
    for i in range(15):
        s.frame({0: (cx + 935 + 5 * i, cy + 200), 2: (cx - 500 - 8 * i, cy + 200)})
    s.frame({})
    return s.lines


def taps_and_hold():
    """A tap, a double tap, then a long press held still (no events while held: timers fire live)."""
    s = Script()
    for _ in range(1):
        s.frame({0: (1000, 1000)}, dt_ms=60)
        s.frame({}, dt_ms=600)
    s.frame({0: (2000, 2000)}, dt_ms=50)
    s.frame({}, dt_ms=120)
    s.frame({0: (2010, 2005)}, dt_ms=50)
    s.frame({}, dt_ms=600)
    s.frame({0: (3000, 1500)}, dt_ms=900)  # held still: the next event comes 0.9 s later
    s.frame({0: (3001, 1500)}, dt_ms=20)
    s.frame({})
    return s.lines


def touchpad_scroll():
    """Two-finger vertical scroll, then a third finger joins and all lift."""
    s = Script(touchpad=True)
    for i in range(40):
        s.frame({0: (2500, 2000 + 30 * i), 1: (3500, 2020 + 30 * i)}, dt_ms=12)
    for i in range(10):
        s.frame({0: (2500, 3200 + 10 * i), 1: (3500, 3220 + 10 * i), 2: (4500, 3000)}, dt_ms=12)
    s.frame({})
    return s.lines


def flood_parts():
    """down: one finger lands. flood: thousands of moves at t=0 (no sleeps) ending with the lift.
    after: a later tap with a new tracking id (the device must still work)."""
    down = Script()
    down.next_id = 100
    down.frame({0: (1000, 1000)})
    flood = Script(t0=0)
    flood.slots = dict(down.slots)
    for i in range(3000):
        flood.t = 0
        flood.frame({0: (1000 + i % 2000, 1000 + i % 1500)})
    flood.t = 0
    flood.frame({})
    after = Script()
    after.next_id = 200
    after.frame({1: (3000, 3000)}, dt_ms=50)
    after.frame({})
    return down.lines, flood.lines, after.lines


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def write(name, lines):
        with open(os.path.join(out, name), "w") as f:
            f.write("\n".join(lines) + "\n")

    write("gen-touchscreen-pinch-pan.evemu", TOUCHSCREEN + pinch_pan())
    write("gen-touchscreen-taps-hold.evemu", TOUCHSCREEN + taps_and_hold())
    write("gen-clickpad-scroll.evemu", TOUCHPAD + touchpad_scroll())
    down, flood, after = flood_parts()
    write("touchscreen.desc", TOUCHSCREEN)
    write("flood-down.events", down)
    write("flood-moves.events", flood)
    write("flood-after.events", after)


if __name__ == "__main__":
    main()
