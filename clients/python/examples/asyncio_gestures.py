#!/usr/bin/env python3
"""Gestures on an asyncio loop, with a stats request every few seconds from another task:
python3 asyncio_gestures.py [SOCKET]"""

import asyncio
import math
import os
import sys

try:
    import multitouchd_client  # noqa: F401
except ImportError:  # run from the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from multitouchd_client import DEFAULT_SOCKET, Gesture, Tap  # noqa: E402
from multitouchd_client.aio import AsyncClient  # noqa: E402
from multitouchd_client.script import run  # noqa: E402


async def follow(path):
    async with await AsyncClient.connect(path) as client:
        print("connected to %s" % client.hello["daemon"], flush=True)
        await client.subscribe(streams=["gestures"])
        async for event in client.events():
            if isinstance(event, Gesture):
                print("%s %s scale=%.3f rotation=%.1f°" % (
                    event.mode.value, event.phase.value, event.scale, math.degrees(event.rotation)), flush=True)
            elif isinstance(event, Tap):
                print("tap x%d at (%.1f, %.1f)" % (event.tap_count, *event.location), flush=True)


def main():
    asyncio.run(follow(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_SOCKET))


if __name__ == "__main__":
    run(main)
