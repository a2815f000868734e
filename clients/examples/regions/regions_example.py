"""Shared by map.py, toolbar.py and observer.py: connect, declare regions on the first device, print
what this program receives (docs/PROTOCOL.md "Touch routing")."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from multitouchd_client import Client, DEFAULT_SOCKET, ProtocolError  # noqa: E402


def describe(m):
    """One line for a routed message, or None for the ones not worth a line (moves, `changed`)."""
    t = m["type"]
    if t == "touches":
        changes = ["%d %s (%g, %g)" % (p["id"], p["phase"], p["x"], p["y"])
                   for p in m["touches"] if p["phase"] not in ("moved", "stationary")]
        if not changes:
            return None
        reason = " [%s]" % m["reason"] if "reason" in m else ""
        return "%.6f touches %s/%s: %s%s" % (m["time"], m.get("region", "-"), m.get("role", "-"),
                                             ", ".join(changes), reason)
    if t == "gesture":
        if m["phase"] == "changed":
            return None
        return "%.6f gesture %s %s %s fingers=%d scale=%.3f" % (m["time"], m.get("region", "-"), m["mode"],
                                                                m["phase"], m["fingers"], m["scale"])
    if t in ("tap", "doubleTap", "longPress"):
        return "%.6f %s %s at (%g, %g)" % (m["time"], t, m.get("region", "-"), m["location"][0], m["location"][1])
    if t == "session":
        return "%.6f session %s %d %s" % (m["time"], m.get("region", "-"), m["session"], m["phase"])
    return None


def run(name, regions_for):
    """regions_for(device) -> the region dicts to declare on it."""
    path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_SOCKET
    with Client(path, timeout=60) as client:
        if "regions" not in client.features:
            sys.exit("%s: this multitouchd does not route touches to regions" % name)
        # A device in the hello (a live one, or a replay waiting for its subscribers) takes the regions
        # before subscribing, so they are in force for its very first touch; otherwise wait for one.
        device = client.devices[0]["id"] if client.devices else None
        backlog = []
        subscribed = device is None
        if subscribed:
            client.subscribe()
        while device is None:
            m = client.receive()
            if m is None:
                return
            if m["type"] == "deviceAdded":
                device = m["device"]["id"]
            backlog.append(m)
        try:
            # Stream messages that arrive before the reply are kept for messages(): nothing is lost.
            reply = client.declare_regions(device, regions_for(device))
        except ProtocolError as error:
            sys.exit("%s: %s" % (name, error))
        if not subscribed:
            client.subscribe()
        print("[%s] regions on device %d: %s" % (name, device, ", ".join(reply["regions"])), flush=True)
        for m in backlog + list(_until_removed(client, device)):
            line = describe(m)
            if line:
                print("[%s] %s" % (name, line), flush=True)


def _until_removed(client, device):
    for m in client.messages():
        yield m
        if m["type"] == "deviceRemoved" and m["device"] == device:
            return
