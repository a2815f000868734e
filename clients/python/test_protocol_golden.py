#!/usr/bin/env python3
"""Reads the protocol's golden files (checks/protocol/golden/) through the Python client.

    python3 clients/python/test_protocol_golden.py

The Swift tests check that these files are exactly what the daemon's encoder writes (one file per
message or request type); this checks that the Python client reads every message line of them through
its own receive path (a local socket plays the daemon) and writes every request line byte for byte.
Both languages read the same bytes. Prints one line per check and exits non-zero on any failure.
"""

import json
import os
import socket
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "..", "checks", "protocol", "golden")
sys.path.insert(0, HERE)
from multitouchd_client import Client, _wire  # noqa: E402
from multitouchd_client.messages import (DoubleTap, Gesture, LongPress, Recognized, Regions, Session, Tap,  # noqa: E402
                                         Touches, Transform, parse)

failures = []


def check(condition, what):
    print(("ok     " if condition else "FAILED ") + what)
    if not condition:
        failures.append(what)


def golden(kind):
    """{type name: [line bytes]} for messages or requests."""
    directory = os.path.join(GOLDEN, kind)
    files = {}
    for name in sorted(os.listdir(directory)):
        if name.endswith(".jsonl"):
            with open(os.path.join(directory, name), "rb") as f:
                files[name[: -len(".jsonl")]] = [line for line in f.read().split(b"\n") if line]
    return files


class FakeDaemon:
    """Accepts one client, writes `lines` to it, and keeps what the client sends."""

    def __init__(self, lines):
        self.dir = tempfile.mkdtemp(prefix="mtd-golden-")
        self.path = os.path.join(self.dir, "s.sock")
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(self.path)
        self.server.listen(1)
        self.received = b""
        self.lines = lines
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        conn, _ = self.server.accept()
        conn.sendall(b"".join(line + b"\n" for line in self.lines))
        conn.shutdown(socket.SHUT_WR)
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            self.received += chunk
        conn.close()

    def close(self):
        self.thread.join(10)
        self.server.close()
        os.unlink(self.path)
        os.rmdir(self.dir)


def main():
    messages = golden("messages")
    requests = golden("requests")
    check("hello" in messages and len(messages) >= 16, "a golden file for every message type (%d)" % len(messages))
    check(len(requests) >= 6, "a golden file for every request type (%d)" % len(requests))

    # Messages: the daemon's bytes, read through the client's own receive path.
    hello = messages["hello"][0]
    everything = [hello] + [line for name in sorted(messages) for line in messages[name]]
    daemon = FakeDaemon(everything)
    client = Client(daemon.path, timeout=10)
    check(client.hello == json.loads(hello), "the client reads the golden hello on connect")
    received = list(client.messages())
    expected_types = [name for name in sorted(messages) for _ in messages[name]]
    check([m["type"] for m in received] == expected_types, "every golden message arrives with its file's type")
    for message, line in zip(received, everything[1:]):
        check(message == json.loads(line), "%s: decoded as the JSON it is" % message["type"])

    # Predictions (docs/PREDICTION.md) reach the typed messages; absent, they are None.
    typed = [parse(m) for m in received]
    touches = [t for m in typed if isinstance(m, Touches) for t in m.touches]
    predicted = [t for t in touches if t.predicted is not None]
    check(predicted and all(isinstance(t.predicted, tuple) and len(t.predicted) == 2 for t in predicted),
          "touches carry predicted as a point")
    check(any(t.predicted is None for t in touches), "touches without predictions have predicted None")
    gestures = [m for m in typed if isinstance(m, Gesture)]
    with_matrix = [g for g in gestures if g.predicted_matrix is not None]
    check(with_matrix and all(g.predicted_matrix.to_list() == g.raw["predictedMatrix"] for g in with_matrix),
          "gesture updates carry predictedMatrix as an Affine")
    check(any(g.predicted_matrix is None for g in gestures), "updates without predictions have predicted_matrix None")

    # Protocol 2: mmX/mmY only where they differ from x/y (pixels); Touch reads x/y for them otherwise.
    raw_touches = [t for m in received if m["type"] == "touches" for t in m["touches"]]
    check(len(raw_touches) == len(touches), "one typed touch per touch object")
    check(any("mmX" not in t for t in raw_touches) and any("mmX" in t for t in raw_touches),
          "the golden touches have mmX/mmY both left out and present")
    check(all((t.mm_x, t.mm_y) == (r.get("mmX", r["x"]), r.get("mmY", r["y"])) for t, r in zip(touches, raw_touches)),
          "Touch.mm_x/mm_y are mmX/mmY, or x/y where the daemon left them out")

    # Frame-aligned touches (subscribe frames) carry their raw samples as (x, y, time) tuples.
    coalesced = [t for t in touches if t.coalesced is not None]
    check(coalesced and all(len(c) == 3 for t in coalesced for c in t.coalesced), "touches carry coalesced samples")

    # Routed messages (docs/PROTOCOL.md "Touch routing") carry region, role and reason in the typed form;
    # whole-device ones have None there. The replies to the region requests have types of their own.
    routed = [m for m in typed if isinstance(m, (Touches, Session, Gesture, Tap, DoubleTap, LongPress, Transform))]
    check(all(m.region == m.raw.get("region") for m in routed), "typed messages carry the region they were sent with")
    check(any(m.region is not None for m in routed) and any(m.region is None for m in routed),
          "the golden messages have region both set and left out")
    routed_touches = [m for m in typed if isinstance(m, Touches)]
    check(all((m.role, m.reason) == (m.raw.get("role"), m.raw.get("reason")) for m in routed_touches),
          "Touches carry role and reason")
    check(any(m.role == "observer" and m.reason == "claimed by owner" for m in routed_touches),
          "an observer's cancellation reads role observer, reason claimed by owner")
    for kind in (Session, Tap, Transform):
        check(any(isinstance(m, kind) and m.region for m in typed), "%s carries its region" % kind.__name__)
    regions = [m for m in typed if isinstance(m, Regions)]
    check(regions and all(m.regions == m.raw["regions"] and m.device == m.raw["device"] for m in regions),
          "the regions reply parses to Regions")
    recognized = [m for m in typed if isinstance(m, Recognized)]
    check(recognized and all(m.region == m.raw["region"] for m in recognized), "the recognized reply parses to Recognized")

    # Requests: what the client writes for the same requests is the same bytes. The request methods that
    # wait for their reply (subscribe, set/resetTransform) are written through the same builders they use.
    sent = []
    for name, lines in sorted(requests.items()):
        for line in lines:
            request = json.loads(line)
            sent.append(line)
            if name == "subscribe" and request.get("devices") != "all":
                client_call = lambda r=request: client.send(_wire.subscribe_request(
                    streams=r.get("streams"), devices=r.get("devices"), id=r.get("id"), predict_ms=r.get("predictMs"),
                    frames=r.get("frames", False)))
            elif name == "frame" and "id" not in request:
                client_call = lambda r=request: client.frame(r["time"])
            elif name == "ping":
                client_call = lambda r=request: client.ping(r["id"])
            elif name == "stats":
                client_call = lambda r=request: client.stats(id=r.get("id"))
            elif name == "resetTransform" and "id" not in request:
                client_call = lambda r=request: client.send(_wire.transform_request(r["device"], region=r.get("region")))
            elif name == "setTransform" and "id" not in request:
                client_call = lambda r=request: client.send(_wire.transform_request(r["device"], r["matrix"],
                                                                                    region=r.get("region")))
            else:
                client_call = lambda r=request: client.send(r)
            client_call()
    client.close()
    daemon.close()
    got = [line for line in daemon.received.split(b"\n") if line]
    check(len(got) == len(sent), "the client sent one line per golden request (%d)" % len(sent))
    for mine, theirs in zip(got, sent):
        check(mine == theirs, "request written byte for byte: %s" % theirs.decode())

    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
