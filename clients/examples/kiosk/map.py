#!/usr/bin/env python3
"""The map (docs/KIOSK.md): one region over the whole screen, under the PIN pad and the Qt app, with
the feel of an iPhone map (momentum after a fling, a double tap zooms by two), predicted touches 16 ms
ahead and frame-aligned delivery: it asks for one frame per display frame (60 Hz here) and gets its
touches resampled there, each with its raw samples as `coalesced`. It draws nothing: where a real map
would draw with each gesture's `matrix` (or `predictedMatrix`), it logs."""

import select
import time

from kiosk_program import SCREEN, ConnectionClosed, Program, arguments, region

FRAME = 1 / 60


def main():
    program = Program("map", arguments(__doc__.splitlines()[0]))
    program.declare([region("map", rect=SCREEN, z=10,
                            gestures={"momentum": True, "double_tap_zoom_factor": 2})])
    program.client.subscribe(predict_ms=16, frames=True)
    next_frame = time.monotonic()
    try:
        while True:
            # A display loop: wait for the socket or the next vsync, whichever comes first.
            wait = max(0.0, next_frame - time.monotonic())
            select.select([program.client], [], [], wait)
            for message in program.client.read_available():
                program.take(message)
            if time.monotonic() >= next_frame:
                program.client.frame()  # time.monotonic(): the daemon maps it onto a replay's clock
                next_frame += FRAME
    except (ConnectionClosed, BrokenPipeError, ConnectionResetError):
        pass  # the daemon went away (a rehearsal's ends with the recording)
    program.close()


if __name__ == "__main__":
    main()
