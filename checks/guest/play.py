#!/usr/bin/env python3
"""Plays the E: lines of an evemu file into an evdev node (writes to /dev/input/eventN inject events
like evemu-play does), one write per frame, each frame at its recorded offset from the first event
measured against one start time. Unlike evemu-play, which sleeps the gap before every event, delays do
not accumulate: a slow guest delays a frame but not every frame after it (overdue frames catch up at
no less than 0.8 of their recorded spacing, so a stall never becomes a burst that overflows the reader).

usage: play.py /dev/input/eventN < file.evemu     (all timestamps 0: plays as fast as possible)
"""
import os
import struct
import sys
import time

EVENT = struct.Struct("qqHHi")  # struct input_event on 64-bit: timeval, type, code, value


def frames(lines):
    frame, t_frame = [], None
    for n, line in enumerate(lines, 1):
        if not line.startswith("E:"):
            continue
        parts = line.split()
        if len(parts) < 5:
            raise SystemExit("play.py: line %d: expected 'E: time type code value': %s" % (n, line.strip()))
        t = float(parts[1])
        type_, code, value = int(parts[2], 16), int(parts[3], 16), int(parts[4])
        if t_frame is None:
            t_frame = t
        frame.append(EVENT.pack(0, 0, type_, code, value))
        if type_ == 0 and code == 0:
            yield t_frame, b"".join(frame)
            frame, t_frame = [], None
    if frame:
        yield t_frame, b"".join(frame)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    fd = os.open(sys.argv[1], os.O_WRONLY)
    start = time.monotonic()
    first = previous = None
    last_write = start
    for t, data in frames(sys.stdin):
        if first is None:
            first = previous = t
        # On schedule, but after a stall never closer than 0.8 of the recorded gap: a burst of overdue
        # frames could overflow a slow reader's evdev buffer (a SYN_DROPPED the recording never had);
        # catching up at 1.25x the recorded rate keeps the reader's load close to real time.
        target = max(start + (t - first), last_write + 0.8 * (t - previous))
        delay = target - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        os.write(fd, data)
        last_write = time.monotonic()
        previous = t
    os.close(fd)


if __name__ == "__main__":
    main()
