"""What the kiosk's three socket programs share (docs/KIOSK.md): connect to the daemon, declare their
regions on its touchscreen before subscribing (so they are in force for the first touch), log every
message they receive as a JSON line, and say at the end what they got.

    python3 map.py [--socket PATH] [--log FILE]
"""

import argparse
import json
import os
import sys

try:
    import multitouchd_client  # noqa: F401  (installed: the Debian package, pip)
except ImportError:  # run from the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from multitouchd_client import DEFAULT_SOCKET, Client, ConnectionClosed, region  # noqa: E402,F401

# The screen (the configuration maps the touchscreen onto this output) and the kiosk's areas, pixels.
SCREEN = [0, 0, 1920, 1080]
PIN_PAD = [1480, 300, 360, 480]
QT_APP = [40, 620, 760, 420]


def arguments(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--socket", default=DEFAULT_SOCKET, help="the daemon's socket")
    parser.add_argument("--log", help="write every message received to this file, one JSON line each")
    return parser.parse_args()


class Program:
    """One connection: `connect`, `declare`, `subscribe`, then `take` each message."""

    def __init__(self, name, args):
        self.name = name
        self.log = open(args.log, "w") if args.log else None
        # A daemon that is (re)starting: wait up to 10 s for it.
        self.client = Client(args.socket, retry_for=10)
        touchscreens = [d for d in self.client.devices if d["class"] == "touchscreen"]
        if not touchscreens:
            sys.exit("%s: the daemon has no touchscreen" % self.name)
        self.device = touchscreens[0]["id"]
        self.messages = 0

    def declare(self, regions):
        reply = self.client.declare_regions(self.device, regions)
        print("%s: regions %s on device %d" % (self.name, ", ".join(reply["regions"]), self.device), flush=True)

    def take(self, message):
        """Counts and logs one message."""
        self.messages += 1
        if self.log:
            self.log.write(json.dumps(message, separators=(",", ":")) + "\n")

    def run(self):
        """Takes messages until the daemon closes the connection (a kiosk program runs as long as the
        daemon does; a rehearsal's daemon ends with --exit-when-done)."""
        try:
            for message in self.client.messages():
                self.take(message)
        except ConnectionClosed:
            pass
        self.close()

    def close(self):
        self.client.close()
        if self.log:
            self.log.close()
        print("%s: %d messages" % (self.name, self.messages), flush=True)
