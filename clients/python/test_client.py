#!/usr/bin/env python3
"""Tests the Python client package against the real daemon, and every line the daemon sends and every
request the client makes against the protocol's JSON Schema (protocol/multitouchd.schema.json).

    python3 clients/python/test_client.py [BIN_DIR] [-k NAME]

BIN_DIR holds the built `multitouchd` and `multitouchctl` (default: `swift build --show-bin-path`).
-k runs only the tests whose name contains NAME. Prints one line per test and "N passed, M failed";
exits non-zero when any test failed. Needs the jsonschema module (python3-jsonschema).
"""

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "protocol"))
import multitouchd_client as mc  # noqa: E402
from multitouchd_client import Affine, Client, ConnectionClosed, ProtocolError, ReplyError  # noqa: E402
from multitouchd_client.aio import AsyncClient  # noqa: E402
import validate  # noqa: E402

try:
    CHECKER = validate.Checker()
except ImportError:
    sys.exit("test_client.py: the jsonschema module is missing (apt-get install python3-jsonschema)")

HEADER = """# EVEMU 1.3
N: multitouchd python test touchscreen
I: 0018 0000 0000 0000
P: 02 00 00 00 00 00 00 00
B: 00 0b 00 00 00 00 00 00 00
""" + "".join("B: 01 %s 00 00 00 00 00 00\n" % ("00 04" if i == 5 else "00 00") for i in range(13)) + """B: 02 00 00 00 00 00 00 00 00
B: 03 03 00 00 00 00 80 60 02
B: 04 00 00 00 00 00 00 00 00
B: 05 00 00 00 00 00 00 00 00
B: 11 00 00 00 00 00 00 00 00
B: 12 00 00 00 00 00 00 00 00
B: 14 00 00 00 00 00 00 00 00
B: 15 00 00 00 00 00 00 00 00
B: 15 00 00 00 00 00 00 00 00
A: 00 0 1000 0 0 10
A: 01 0 600 0 0 10
A: 2f 0 9 0 0 0
A: 35 0 1000 0 0 10
A: 36 0 600 0 0 10
A: 39 0 65535 0 0 0
"""


def pinch_recording(frames):
    """Two fingers spreading apart, then one lifts and the other pans, then it lifts."""
    lines = []
    t = [1.0]

    def ev(typ, code, value):
        lines.append("E: %.6f %04x %04x %d" % (t[0], typ, code, value))

    def syn():
        ev(0, 0, 0)
        t[0] += 0.01

    ev(3, 0x2f, 0); ev(3, 0x39, 1); ev(3, 0x35, 400); ev(3, 0x36, 300); ev(1, 0x14a, 1)
    ev(3, 0x2f, 1); ev(3, 0x39, 2); ev(3, 0x35, 600); ev(3, 0x36, 300)
    syn()
    for i in range(1, frames + 1):
        spread = 100 + i
        ev(3, 0x2f, 0); ev(3, 0x35, 500 - spread)
        ev(3, 0x2f, 1); ev(3, 0x35, 500 + spread)
        syn()
    ev(3, 0x39, -1)
    syn()
    for i in range(1, 21):
        ev(3, 0x2f, 0); ev(3, 0x35, 300 + i * 5)
        syn()
    ev(3, 0x39, -1); ev(1, 0x14a, 0)
    syn()
    return HEADER + "\n".join(lines) + "\n"


class SchemaClient(Client):
    """A Client that checks every line it reads and every request it sends against the schema."""

    def _read_line(self):
        line = super()._read_line()
        if line is not None:
            CHECKER.check(json.loads(line))
        return line

    def send(self, request):
        CHECKER.check(request, "request")
        super().send(request)


class SchemaAsyncClient(AsyncClient):
    async def _read_line(self):
        line = await super()._read_line()
        if line is not None:
            CHECKER.check(json.loads(line))
        return line

    async def send(self, request):
        CHECKER.check(request, "request")
        await super().send(request)


class Daemon:
    def __init__(self, bin_dir, tmp, args, socket_path=None):
        self.socket = socket_path or os.path.join(tmp, "mtd-%d.sock" % time.monotonic_ns())
        self.log = open(os.path.join(tmp, "daemon.log"), "ab")
        self.proc = subprocess.Popen(
            [os.path.join(bin_dir, "multitouchd"), "--socket", self.socket, "--no-devices"] + args,
            stdout=subprocess.DEVNULL, stderr=self.log)
        for _ in range(1000):
            if os.path.exists(self.socket):
                try:
                    Client(self.socket).close()
                    return
                except OSError:
                    pass
            if self.proc.poll() is not None:
                raise RuntimeError("multitouchd exited with %s" % self.proc.returncode)
            time.sleep(0.01)
        raise RuntimeError("multitouchd did not listen")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                return self.proc.wait()
        return self.proc.returncode


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def write_pinch(tmp, name, frames):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(pinch_recording(frames))
    return path


def replay_json(bin_dir, path):
    return subprocess.run([os.path.join(bin_dir, "multitouchctl"), "replay", "--json", path], check=True,
                          capture_output=True, text=True).stdout.splitlines()


def served(lines):
    """`replay --json` lines as a client of a `--wait-for-subscribers` daemon receives them: the
    announcement's deviceAdded lines are not sent (the devices are in the client's hello)."""
    i = 0
    while i < len(lines) and json.loads(lines[i])["type"] == "deviceAdded":
        i += 1
    return lines[i:]


def first_difference(got, expected):
    return next(((i, g, e) for i, (g, e) in enumerate(zip(got, expected)) if g != e), None)


def test_hello_and_ping(bin_dir, tmp):
    d = Daemon(bin_dir, tmp, [])
    try:
        with SchemaClient(d.socket) as c:
            check(c.hello["protocol"] == mc.PROTOCOL_VERSION == 2, "protocol 2")
            check(c.hello["daemon"].startswith("multitouchd "), "daemon name")
            c.ping(42)
            check(c.receive() == {"type": "pong", "id": 42}, "pong echoes the id")
            reply = c.request({"type": "stats"})
            check(len(reply["clients"]) == 1, "stats lists this client")
            stats = mc.parse(reply)
            check(isinstance(stats, mc.Stats) and stats.clients[0]["subscribed"] is False, repr(stats))
    finally:
        check(d.stop() == 0, "clean exit")


def test_bad_request_is_an_error_and_the_connection_stays(bin_dir, tmp):
    d = Daemon(bin_dir, tmp, [])
    try:
        with SchemaClient(d.socket) as c:
            c._sock.sendall(b"this is not json\n")
            error = c.receive()
            check(error["type"] == "error" and error["code"] == "invalid-json" and error["fatal"] is False, repr(error))
            try:
                c.request({"type": "resetTransform", "device": 99})
                check(False, "unknown device must be an error")
            except ReplyError as e:
                check(e.code == "unknown-device" and not e.fatal, str(e))
            c.ping("still-here")
            check(c.receive()["id"] == "still-here", "connection kept")
    finally:
        d.stop()


def test_subscriber_receives_exactly_the_replay_output(bin_dir, tmp):
    path = write_pinch(tmp, "pinch.evemu", 150)
    expected = served(replay_json(bin_dir, path))
    check(any(json.loads(l)["type"] == "gesture" for l in expected), "the recording makes gestures")
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "50", "--wait-for-subscribers", "1"])
    try:
        with SchemaClient(d.socket) as c:
            c.subscribe()
            got = []
            while True:
                line = c.receive_line()
                check(line is not None, "connection open until the replay ends")
                kind = json.loads(line)["type"]
                if kind == "subscribed":
                    continue
                got.append(line.decode("utf-8"))
                if kind == "deviceRemoved":
                    break
            check(got == expected, "got %d lines, expected %d; first difference: %r" % (
                len(got), len(expected), first_difference(got, expected)))
    finally:
        d.stop()


def test_predicting_subscriber_receives_the_predicted_replay(bin_dir, tmp):
    # Three subscribers of one replay, each its own horizon (issue 27: before, a second horizon was
    # refused): the one asking 16 ms receives exactly `replay --json --predict-ms 16`, the one asking
    # 8 ms exactly `--predict-ms 8`, the other exactly `replay --json` (docs/PREDICTION.md).
    path = write_pinch(tmp, "pinch-predict.evemu", 150)
    plain = served(replay_json(bin_dir, path))

    def predicted(ms):
        return served(subprocess.run([os.path.join(bin_dir, "multitouchctl"), "replay", "--json", "--predict-ms",
                                      str(ms), path], check=True, capture_output=True, text=True).stdout.splitlines())
    at16, at8 = predicted(16), predicted(8)
    check(any('"predictedMatrix"' in l for l in at16), "the recording makes predicted gestures")
    check(at8 != at16, "the two horizons predict differently")
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "50", "--wait-for-subscribers", "3"])
    try:
        with SchemaClient(d.socket) as a, SchemaClient(d.socket) as other, SchemaClient(d.socket) as b:
            check(a.subscribe(predict_ms=16).get("predictMs") == 16, "subscribed echoes predictMs")
            check(other.subscribe(predict_ms=8).get("predictMs") == 8, "a second horizon is served too")
            check("predictMs" not in b.subscribe(), "no predictMs without predictions")
            for c, expected, name in ((a, at16, "16 ms"), (other, at8, "8 ms"), (b, plain, "plain")):
                got = []
                while True:
                    line = c.receive_line()
                    check(line is not None, "connection open until the replay ends")
                    message = json.loads(line)
                    got.append(line.decode("utf-8"))
                    if message["type"] == "deviceRemoved":
                        break
                check(got == expected, "%s: got %d lines, expected %d; first difference: %r" % (
                    name, len(got), len(expected), first_difference(got, expected)))
    finally:
        d.stop()
    from multitouchd_client import _wire
    for bad in (51, -1, 1.5, True):
        try:
            _wire.subscribe_request(predict_ms=bad)
            check(False, "predict_ms %r is refused" % (bad,))
        except ValueError:
            pass


def test_frame_aligned_subscriber_receives_its_touches_per_frame(bin_dir, tmp):
    # A frames=True subscriber receives no touches or gestures until it asks for a frame; a frame after
    # the end of the replay delivers every touch with began and ended, every raw sample of it exactly
    # once as coalesced, and exactly the replay's gestures (docs/PREDICTION.md "Frame-aligned resampling").
    path = write_pinch(tmp, "pinch-frames.evemu", 60)
    raw = [json.loads(l) for l in replay_json(bin_dir, path)]
    framed = subprocess.run([os.path.join(bin_dir, "multitouchctl"), "replay", "--json", "--frame-period-us", "16667",
                             path], check=True, capture_output=True, text=True).stdout.splitlines()
    check(framed and all("coalesced" in l for l in framed if '"touches"' in l), "replay --frame-period-us coalesces")
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "50", "--wait-for-subscribers", "1"])
    try:
        with SchemaClient(d.socket) as c:
            with SchemaClient(d.socket) as other:
                try:
                    other.request({"type": "frame", "time": 1.0}, reply_type="pong")
                    check(False, "a frame without frames=True is refused")
                except ReplyError as e:
                    check(e.code == "bad-field", str(e))
            c.subscribe(frames=True)
            early = []
            for message in c.messages():
                if message["type"] == "deviceRemoved":
                    break
                early.append(message["type"])
            check(not any(t in ("touches", "gesture", "session", "tap") for t in early), "held until a frame: %r" % early)
            # After the end, a frame at the display's time (time.monotonic(), which the daemon takes
            # onto the replay's clock, running on past the end) takes everything.
            end = max(m["time"] for m in raw if "time" in m)
            # The display frame 50 ms from now (a vsync time is the upcoming frame's): past the end on
            # the replay's clock however soon after the end this runs.
            c.frame(time.monotonic() + 0.05)
            c.ping("after-frame")
            got = []
            for message in c.messages():
                if message["type"] == "pong":
                    break
                got.append(message)
        touches = [m for m in got if m["type"] == "touches"]
        check(len(touches) == 2, "one frame: began, then the ends in a message of their own (%d)" % len(touches))
        check(all(end - 0.0051 <= m["time"] < end + 3600 for m in touches),
              "the frame's time on the recording's clock, past its end: %r" % [m["time"] for m in touches])
        check(all(t["phase"] == "began" for t in touches[0]["touches"]), "first: began")
        check(all(t["phase"] in ("ended", "cancelled") for t in touches[1]["touches"]), "second: ended")
        samples = {}
        for m in raw:
            if m["type"] == "touches":
                for t in m["touches"]:
                    samples.setdefault(t["id"], []).append([t["x"], t["y"], m["time"]])
        coalesced = {}
        for m in touches:
            for t in m["touches"]:
                coalesced.setdefault(t["id"], []).extend(t["coalesced"])
        check(coalesced == samples, "every raw sample exactly once as coalesced")
        check([m for m in got if m["type"] != "touches"] == [m for m in raw if m["type"] not in ("touches", "deviceAdded", "deviceRemoved")],
              "the replay's gestures, in order")
    finally:
        d.stop()
    from multitouchd_client import _wire
    check(_wire.frame_request(12.3456789) == {"type": "frame", "time": 12.345679}, "frame time in µs")
    for bad in (-1, True, "1"):
        try:
            _wire.frame_request(bad)
            check(False, "frame time %r is refused" % (bad,))
        except ValueError:
            pass


def test_frames_against_a_replay_are_timed_on_the_monotonic_clock(bin_dir, tmp):
    # Issue 29 item 6: frame() sends time.monotonic(), the replay's messages carry the recording's clock;
    # the daemon used to resample at the monotonic time itself (one frame took everything, at a time
    # no message had). It converts a frame's time to the recording time playing then: the frames'
    # touches lie on the recording's clock, spread over the frames that asked while it played, and
    # every raw sample arrives once as coalesced.
    path = write_pinch(tmp, "pinch-clock.evemu", 60)
    raw = [json.loads(l) for l in replay_json(bin_dir, path)]
    first = min(m["time"] for m in raw if m["type"] == "touches")
    last = max(m["time"] for m in raw if m["type"] == "touches")
    d = Daemon(bin_dir, tmp, ["--replay", path, "--wait-for-subscribers", "1"])
    answers = []
    try:
        with SchemaClient(d.socket) as c:
            c.subscribe(frames=True)
            removed = False
            for n in range(3000):  # a bound on a hang only: the replay plays 0.6 s
                c.frame()
                c.ping("f%d" % n)
                got = []
                for message in c.messages():
                    if message["type"] == "pong":
                        break
                    got.append(message)
                answers.append([m for m in got if m["type"] == "touches"])
                removed = removed or any(m["type"] == "deviceRemoved" for m in got)
                if removed and not answers[-1]:
                    break
                time.sleep(1 / 60)
    finally:
        d.stop()
    touches = [m for a in answers for m in a]
    check(touches, "frames delivered touches")
    # A frame's time is the recording time playing when it was asked; the frame that delivers the last
    # samples may be asked a frame or, on a loaded machine, more after them, so the bound above `last`
    # is half a second: still far below the monotonic clock, on which the old daemon stamped frames.
    times = sorted({m["time"] for m in touches})
    check(first - 0.01 <= times[0] and times[-1] <= last + 0.5,
          "frame times on the recording's clock (%.3f...%.3f): %r ... %r" % (first, last, times[:3], times[-3:]))
    check(sum(1 for a in answers if a) >= 2, "spread over the frames asked while it played")
    samples = sum(len(m["touches"]) for m in raw if m["type"] == "touches")
    check(sum(len(t["coalesced"]) for m in touches for t in m["touches"]) == samples, "each raw sample once")


def test_a_frame_aligned_client_gets_what_it_holds_when_the_daemon_stops(bin_dir, tmp):
    # Found with the kiosk (docs/KIOSK.md): a frames=True client that had not asked for its last frames
    # when the daemon stopped (a rehearsal's --exit-when-done, SIGTERM) lost the touches held for it,
    # ends included. At shutdown the daemon now delivers what it holds, so every touch ends.
    path = write_pinch(tmp, "pinch-held.evemu", 30)
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "20", "--wait-for-subscribers", "1"])
    got = []
    try:
        with SchemaClient(d.socket) as c:
            c.subscribe(frames=True)
            for message in c.messages():
                got.append(message)
                if message["type"] == "deviceRemoved":
                    break
            check(not any(m["type"] == "touches" for m in got), "held until a frame or the end")
            d.stop()
            got += list(c.messages())
    finally:
        d.stop()
    phases = {}
    for m in got:
        for t in m.get("touches", []) if m["type"] == "touches" else []:
            phases.setdefault(t["id"], []).append(t["phase"])
    check(phases and all(p[0] == "began" and p[-1] in ("ended", "cancelled") for p in phases.values()),
          "every touch began and ended for it: %r" % phases)


def test_request_mid_stream_loses_no_message(bin_dir, tmp):
    # Regression: request() used to set stream messages aside in a list messages() never returned.
    path = write_pinch(tmp, "pinch-mid.evemu", 150)
    expected = served(replay_json(bin_dir, path))
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "3", "--wait-for-subscribers", "1"])
    try:
        with SchemaClient(d.socket) as c:
            c.subscribe(streams=["touches", "gestures", "devices"])
            got = []
            requested = 0
            for message in c.messages():
                if message["type"] == "subscribed":
                    continue
                got.append(message)
                if message["type"] == "gesture" and requested < 3:
                    time.sleep(0.1)  # let stream lines queue up behind the coming reply
                    requested += 1
                    stats = c.request({"type": "stats"})
                    check(stats["type"] == "stats", repr(stats))
                if message["type"] == "deviceRemoved":
                    break
            want = [json.loads(l) for l in expected]
            check(requested == 3, "three requests made mid-stream")
            check(got == want, "got %d messages, expected %d; first difference: %r" % (
                len(got), len(want), first_difference(got, want)))
    finally:
        d.stop()


def test_typed_events(bin_dir, tmp):
    path = write_pinch(tmp, "pinch-typed.evemu", 80)
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "20", "--wait-for-subscribers", "1"])
    try:
        with SchemaClient(d.socket) as c:
            check(isinstance(mc.parse(c.subscribe()), mc.Subscribed), "subscribe() returns the subscribed reply")
            kinds = set()
            last = None
            for event in c.events():
                kinds.add(type(event).__name__)
                if isinstance(event, mc.Gesture):
                    check(event.phase in (mc.Phase.BEGAN, mc.Phase.CHANGED, mc.Phase.ENDED), repr(event.phase))
                    check(event.mode in (mc.Mode.PAN, mc.Mode.PINCH_ROTATE), repr(event.mode))
                    check(event.matrix == Affine.from_list(event.raw["matrix"]), "matrix typed")
                    last = event
                if isinstance(event, mc.Touches):
                    check(all(isinstance(t.phase, mc.Phase) for t in event.touches), "touch phases typed")
                if isinstance(event, mc.DeviceRemoved):
                    break
            # The waiting replay's device is in the hello, not announced after it.
            check(c.devices and c.devices[0]["id"] == 1, repr(c.hello))
            check({"Touches", "Session", "Gesture", "DeviceRemoved"} <= kinds, repr(kinds))
            check("Subscribed" not in kinds, "the subscribed reply was subscribe()'s return value: %r" % kinds)
            check("DeviceAdded" not in kinds, repr(kinds))
            check(last is not None and last.phase == "ended", "str enums compare with strings")
        check(isinstance(mc.parse({"type": "futureThing", "x": 1}), mc.UnknownMessage), "unknown type tolerated")
        try:
            mc.parse({"type": "gesture", "device": 1})
            check(False, "a gesture without fields must not parse")
        except ProtocolError:
            pass
    finally:
        d.stop()


def test_schema_rejects_what_the_daemon_must_not_send(bin_dir, tmp):
    # The schema must be able to fail: each of these is one mistake away from a real message.
    good = json.loads(replay_json(bin_dir, write_pinch(tmp, "p.evemu", 20))[3])
    check(CHECKER.problems(good) == [], "a real message passes")
    for mutate in (lambda m: m.update(phase="bogus"), lambda m: m.pop("time"), lambda m: m.update(extra=1),
                   lambda m: m.update(device="1"), lambda m: m.update(type="nonsense")):
        bad = dict(good)
        mutate(bad)
        check(CHECKER.problems(bad), "schema accepted %r" % (bad,))
    check(CHECKER.problems({"type": "subscribe", "streams": ["touch"]}, "request"), "misspelt stream accepted")
    check(CHECKER.problems({"type": "ping", "idd": 1}, "request"), "unknown request field accepted")


def test_fileno_and_read_available(bin_dir, tmp):
    import selectors
    path = write_pinch(tmp, "pinch-fd.evemu", 60)
    expected = [json.loads(l) for l in served(replay_json(bin_dir, path))]
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "10", "--wait-for-subscribers", "1"])
    try:
        with SchemaClient(d.socket) as c:
            c.subscribe()
            sel = selectors.DefaultSelector()
            sel.register(c.fileno(), selectors.EVENT_READ)
            got = []
            wakeups = 0
            while not got or got[-1]["type"] != "deviceRemoved":
                if not c.has_buffered():
                    check(sel.select(timeout=30), "socket became readable")
                wakeups += 1
                got += [m for m in c.read_available() if m["type"] != "subscribed"]
            check(got == expected, "got %d, expected %d: %r" % (len(got), len(expected), first_difference(got, expected)))
            check(c.read_available() == [], "nothing more without blocking")
            d.stop()
            try:
                while True:
                    check(sel.select(timeout=30), "end of connection is readable")
                    check(c.read_available() == [], "no message after the replay's end")
            except ConnectionClosed:
                pass
    finally:
        d.stop()


def test_read_available_never_blocks_with_a_timeout(bin_dir, tmp):
    # Regression: with Client(timeout=...) set, read_available() waited that long on a quiet socket and
    # then raised TimeoutError (the regions example sets a timeout; a GUI loop calls it freely).
    d = Daemon(bin_dir, tmp, [])
    try:
        with SchemaClient(d.socket, timeout=3) as c:
            for _ in range(3):
                check(c.read_available() == [], "nothing there: an empty list, no TimeoutError")
            c.ping("quiet")
            import selectors
            sel = selectors.DefaultSelector()
            sel.register(c.fileno(), selectors.EVENT_READ)
            got = []
            while not got:
                check(sel.select(timeout=30), "the pong makes the socket readable")
                got = c.read_available()
            check(got == [{"type": "pong", "id": "quiet"}], repr(got))
            check(c.read_available() == [], "drained: an empty list again")
    finally:
        d.stop()


def test_requests_wait_for_their_reply(bin_dir, tmp):
    # subscribe(), set_transform() and reset_transform() return their reply, and a refusal raises right
    # there (before: they only sent, and the error came later as a stream message).
    path = write_pinch(tmp, "pinch-wait.evemu", 20)
    # Three subscribers awaited: the two here never start the replay, so no stream message comes.
    d = Daemon(bin_dir, tmp, ["--replay", path, "--wait-for-subscribers", "3"])
    try:
        with SchemaClient(d.socket) as first, SchemaClient(d.socket) as second:
            device = first.devices[0]["id"]
            reply = first.subscribe(streams=["gestures"], predict_ms=8)
            check(reply["type"] == "subscribed" and reply["streams"] == ["gestures"], repr(reply))
            # Another horizon is served (issue 27); a refusal raises right there (a region request
            # naming a region the client does not have).
            reply = second.subscribe(predict_ms=16)
            check(reply.get("predictMs") == 16, repr(reply))
            try:
                second.request({"type": "recognized", "device": device, "region": "nope"})
                check(False, "a recognized for an unknown region must raise")
            except ReplyError as e:
                check(e.code == "bad-field" and "nope" in e.message, str(e))
            try:
                first.reset_transform(99)
                check(False, "an unknown device must raise at reset_transform()")
            except ReplyError as e:
                check(e.code == "unknown-device", str(e))
            reply = first.set_transform(device, [2, 0, 0, 2, 5, 0])
            check(reply["type"] == "transform" and reply["matrix"] == [2, 0, 0, 2, 5, 0], repr(reply))
            reply = first.reset_transform(device)
            check(reply["type"] == "transform" and reply["matrix"] == [1, 0, 0, 1, 0, 0], repr(reply))
            check(first.unsubscribe()["type"] == "unsubscribed", "unsubscribe returns its reply")
            # Nothing was left behind for the stream: the replies were the methods' return values.
            check(first.read_available() == [], "no reply or error arrives later as a stream message")
    finally:
        d.stop()


def test_region_transform_and_typed_region_messages(bin_dir, tmp):
    # set_transform/reset_transform take region=; routed messages carry region and role in their typed
    # form, and touches the daemon ends itself a reason (here: the region's own pan cancels its touches,
    # cancelsTouchesOnRecognition, which the pipeline decides, not the client's timing).
    path = write_pinch(tmp, "pinch-region.evemu", 60)
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "10", "--wait-for-subscribers", "1"])
    try:
        with SchemaClient(d.socket) as c:
            device = c.devices[0]["id"]
            reply = mc.parse(c.declare_regions(device, [mc.region("all", rect=[0, 0, 1000, 1000],
                                                                  cancelsTouchesOnRecognition=True)]))
            check(isinstance(reply, mc.Regions) and reply.regions == ["all"] and reply.device == device, repr(reply))
            reply = c.set_transform(device, [2, 0, 0, 2, 0, 0], region="all")
            typed = mc.parse(reply)
            check(isinstance(typed, mc.Transform) and typed.region == "all" and typed.matrix.to_list() == [2, 0, 0, 2, 0, 0],
                  repr(reply))
            typed = mc.parse(c.reset_transform(device, region="all"))
            check(typed.region == "all" and typed.matrix == Affine.identity(), repr(typed))
            try:
                c.set_transform(device, [1, 0, 0, 1, 0, 0], region="nowhere")
                check(False, "an unknown region must be refused")
            except ReplyError as e:
                check(e.code == "bad-field", str(e))
            c.subscribe(streams=["touches", "gestures", "devices"])
            events = []
            for event in c.events():
                events.append(event)
                if isinstance(event, mc.DeviceRemoved):
                    break
            touches = [e for e in events if isinstance(e, mc.Touches)]
            check(touches and all(e.region == "all" and e.role == "owner" for e in touches), repr(touches[:1]))
            cancelled = [e for e in touches if e.reason is not None]
            check(cancelled and cancelled[0].reason == "gesture recognized" and
                  all(t.phase == "cancelled" for t in cancelled[0].touches), repr(cancelled[:1]))
            check(all(e.reason is None for e in touches if e not in cancelled), "reason only where the daemon ended them")
            sessions = [e for e in events if isinstance(e, (mc.Session, mc.Gesture))]
            check(sessions and all(e.region == "all" for e in sessions), "the region's own session: %r" % sessions[:1])
    finally:
        d.stop()


def test_reconnect_restores_the_subscription(bin_dir, tmp):
    sock = os.path.join(tmp, "restart.sock")
    first = Daemon(bin_dir, tmp, [], socket_path=sock)
    second = None
    try:
        with SchemaClient(sock) as c:
            check(c.subscribe(streams=["gestures", "devices"])["type"] == "subscribed", "subscribed")
            stream = c.messages(reconnect=True, retry_for=30)
            first.stop()
            path = write_pinch(tmp, "pinch-re.evemu", 40)
            second = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "20", "--wait-for-subscribers", "1"],
                            socket_path=sock)
            hello = next(stream)
            check(hello["type"] == "hello", "the new hello comes first: %r" % (hello,))
            again = next(stream)
            check(again["type"] == "subscribed" and again["streams"] == ["gestures", "devices"], repr(again))
            kinds = []
            for message in stream:
                kinds.append(message["type"])
                if message["type"] == "deviceRemoved":
                    break
            check("gesture" in kinds and "touches" not in kinds, "the same streams as before: %r" % kinds[:5])
    finally:
        first.stop()
        if second:
            second.stop()


def test_asyncio_client(bin_dir, tmp):
    path = write_pinch(tmp, "pinch-aio.evemu", 60)
    expected = [json.loads(l) for l in served(replay_json(bin_dir, path))]
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "10", "--wait-for-subscribers", "1"])

    async def run():
        async with await SchemaAsyncClient.connect(d.socket) as c:
            check(c.hello["type"] == "hello", "hello")
            reply = await c.subscribe()
            check(reply["type"] == "subscribed", repr(reply))
            got = []
            async for message in c.messages():
                got.append(message)
                if len(got) == 5:
                    check((await c.get_stats())["type"] == "stats", "stats mid-stream")
                if message["type"] == "deviceRemoved":
                    break
            check(got == expected, "got %d, expected %d: %r" % (len(got), len(expected), first_difference(got, expected)))
            try:
                await c.reset_transform(77)
                check(False, "unknown device is an error")
            except ReplyError as e:
                check(e.code == "unknown-device", str(e))

    try:
        asyncio.run(asyncio.wait_for(run(), 60))
    finally:
        d.stop()


def run_example(name, socket_path, *args):
    return subprocess.Popen([sys.executable, os.path.join(HERE, "examples", name), *args, socket_path],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_print_gestures_example(bin_dir, tmp):
    path = write_pinch(tmp, "pinch2.evemu", 60)
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "20", "--wait-for-subscribers", "1"])
    example = run_example("print_gestures.py", d.socket)
    try:
        lines = []
        for line in example.stdout:
            lines.append(line.rstrip("\n"))
            if "removed" in line:
                break
        d.stop()
        example.wait(timeout=10)
        check(lines[0].startswith("connected to multitouchd"), repr(lines[:1]))
        check(any(" pinchRotate " in l for l in lines), "a pinchRotate line")
        check(any(" pan " in l for l in lines), "a pan line")
        check(example.returncode == 0, "the example exits when the daemon stops")
    finally:
        if example.poll() is None:
            example.kill()
        d.stop()


def test_print_gestures_piped_to_head(bin_dir, tmp):
    # Regression: `print_gestures.py | head -1` ended in a BrokenPipeError traceback.
    path = write_pinch(tmp, "pinch-head.evemu", 150)
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "2", "--wait-for-subscribers", "1"])
    example = run_example("print_gestures.py", d.socket)
    try:
        first = example.stdout.readline()
        check(first.startswith("connected to"), repr(first))
        example.stdout.close()  # what head does after its line
        try:
            example.wait(timeout=30)
        except subprocess.TimeoutExpired:
            check(False, "the example did not exit after its reader went away")
        err = example.stderr.read()
        check("Traceback" not in err and "BrokenPipe" not in err, "stderr: %r" % err[-500:])
        check(example.returncode == 0, "exit status %r" % example.returncode)
    finally:
        if example.poll() is None:
            example.kill()
        d.stop()


def test_map_example_applies_the_matrix(bin_dir, tmp):
    path = write_pinch(tmp, "pinch-map.evemu", 100)
    expected = [json.loads(l) for l in served(replay_json(bin_dir, path))]
    final = Affine.from_list([m for m in expected if m["type"] == "gesture"][-1]["matrix"])
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "20", "--wait-for-subscribers", "1"])
    example = run_example("map_view.py", d.socket, "--text")
    try:
        out, err = example.communicate(timeout=60)
        check(example.returncode == 0, "exit %r: %s" % (example.returncode, err[-500:]))
        lines = out.splitlines()
        check(any(l.startswith("gesture ") for l in lines), "gesture lines: %r" % lines[:3])
        last = [l for l in lines if l.startswith("corners ")][-1]
        corners = json.loads(last[len("corners "):])
        want = [list(final.apply(x, y)) for x, y in ((0, 0), (100, 0), (100, 60), (0, 60))]
        check(all(abs(a - b) < 1e-6 for p, q in zip(corners, want) for a, b in zip(p, q)),
              "map corners %r, the final matrix puts them at %r" % (corners, want))
        check(final != Affine.identity(), "the recording moved the map")
    finally:
        if example.poll() is None:
            example.kill()
        d.stop()


def tree(path):
    """Every file and directory under path with its size and mtime: what an install must not change."""
    return sorted((os.path.relpath(os.path.join(d, n), path), os.lstat(os.path.join(d, n)).st_size,
                   os.lstat(os.path.join(d, n)).st_mtime_ns) for d, dirs, files in os.walk(path) for n in dirs + files)


def test_pip_installs_the_package(bin_dir, tmp):
    # `pip install ./clients/python` must leave the checkout as it was (before: setuptools wrote build/
    # and *.egg-info into it, and failed on a read-only tree). Install from a read-only copy and compare
    # the copy before and after (root ignores the read-only bits, so the comparison is what counts).
    # Build isolation fetches the build backend (flit_core) from PyPI.
    source = os.path.join(tmp, "src")
    shutil.copytree(HERE, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    before = tree(source)
    for d, dirs, files in os.walk(source):
        for n in dirs + files + [""]:
            os.chmod(os.path.join(d, n), 0o555 if n in dirs or n == "" else 0o444)
    target = os.path.join(tmp, "site")
    try:
        result = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-cache-dir",
                                 "--target", target, source], capture_output=True, text=True, cwd=tmp)
    finally:
        for d, dirs, files in os.walk(source):
            os.chmod(d, 0o755)
    check(result.returncode == 0, "pip install failed: %s" % result.stderr[-1500:])
    after = tree(source)
    check(after == before, "the install changed the source tree: %r" % sorted(set(after) ^ set(before))[:10])
    probe = ("import multitouchd_client, multitouchd_client.aio as a; "
             "print(multitouchd_client.__file__); print(multitouchd_client.__version__)")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True, cwd=tmp,
                         env=dict(os.environ, PYTHONPATH=target)).stdout.split()
    check(out[0].startswith(target), "imported from the install: %r" % out)
    check(os.path.exists(os.path.join(target, "multitouchd_client", "py.typed")), "py.typed installed")
    check(not os.path.exists(os.path.join(target, "test_client.py")), "tests not installed")


def test_daemon_logs_for_the_journal(bin_dir, tmp):
    # Under systemd (JOURNAL_STREAM names stderr's device:inode) every line carries a <N> syslog
    # priority and no timestamp of its own; elsewhere the timestamped terminal format stays.
    import re
    for journal in (True, False):
        log_path = os.path.join(tmp, "journal-%s.log" % journal)
        sock = os.path.join(tmp, "journal-%s.sock" % journal)
        with open(log_path, "wb") as log:
            st = os.fstat(log.fileno())
            env = dict(os.environ)
            env.pop("JOURNAL_STREAM", None)
            if journal:
                env["JOURNAL_STREAM"] = "%d:%d" % (st.st_dev, st.st_ino)
            # A socket group that does not exist: a warning, beside the info lines.
            config = os.path.join(tmp, "j.toml")
            with open(config, "w") as f:
                f.write('[socket]\ngroup = "no-such-group-mtd"\n')
            proc = subprocess.Popen([os.path.join(bin_dir, "multitouchd"), "--socket", sock, "--no-devices",
                                     "--config", config], stdout=subprocess.DEVNULL, stderr=log, env=env)
            try:
                Client(sock, retry_for=30).close()
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=10)
        lines = open(log_path, encoding="utf-8").read().splitlines()
        check(lines, "the daemon logged")
        if journal:
            check(all(re.match(r"<[2-7]>multitouchd: ", l) for l in lines), "every line has a priority: %r" % lines[:3])
            check(not any(re.search(r"\d{4}-\d\d-\d\dT\d\d:", l) for l in lines), "no timestamps: %r" % lines[:3])
            check(any(l.startswith("<4>") and "group does not exist" in l for l in lines), "warning is <4>: %r" % lines)
            check(any(l.startswith("<6>") and "client: connected" in l for l in lines), "info is <6>: %r" % lines)
        else:
            check(all(re.match(r"\d{4}-\d\d-\d\dT", l) for l in lines), "terminal lines keep timestamps: %r" % lines[:2])


def test_region_examples_each_get_only_their_own_touches(bin_dir, tmp):
    examples = os.path.join(os.path.dirname(HERE), "examples", "regions")
    d = Daemon(bin_dir, tmp, ["--replay", os.path.join(examples, "tap-and-pinch.evemu"), "--speed", "2",
                              "--wait-for-subscribers", "3"])
    programs = {name: subprocess.Popen([sys.executable, os.path.join(examples, name + ".py"), d.socket],
                                       stdout=subprocess.PIPE, text=True)
                for name in ("map", "toolbar", "observer")}
    try:
        out = {name: p.communicate(timeout=60)[0].splitlines() for name, p in programs.items()}
        for name, p in programs.items():
            check(p.returncode == 0, "%s exits cleanly" % name)
        toolbar, map_, observer = out["toolbar"], out["map"], out["observer"]
        check(toolbar[0] == "[toolbar] regions on device 1: toolbar", repr(toolbar[:1]))
        check("[toolbar] 4.030000 touches toolbar/owner: 3 began (20, 5)" in toolbar, repr(toolbar))
        check("[toolbar] 4.080000 tap toolbar at (20, 5)" in toolbar, repr(toolbar))
        check(not any("gesture" in line for line in toolbar), "no pan or pinch for the toolbar")
        check("[map] 4.000000 touches map/owner: 1 began (40, 35), 2 began (60, 35)" in map_, repr(map_))
        check("[map] 4.210000 gesture map pinchRotate ended fingers=2 scale=3.000" in map_, repr(map_))
        check(not any(" 3 " in line or "tap" in line for line in map_), "the toolbar finger is not the map's")
        check(sum(1 for line in observer if "/observer: " in line) == 6, repr(observer))
    finally:
        for p in programs.values():
            if p.poll() is None:
                p.kill()
        d.stop()


def test_region_helper(bin_dir, tmp):
    from multitouchd_client import region
    check(region("map", rect=[0, 0, 10, 10], z=1, exclusive=True) ==
          {"id": "map", "rect": [0, 0, 10, 10], "z": 1, "exclusive": True}, "rect region")
    check(region("fx", polygon=[(0, 0), (1, 0), (0, 1)], mode="observer", gestures=True) ==
          {"id": "fx", "polygon": [[0, 0], [1, 0], [0, 1]], "mode": "observer", "gestures": True}, "polygon region")
    # A region's own gesture settings (README "The feel of an iPhone map") are kept, not made a boolean.
    check(region("map", rect=[0, 0, 10, 10], gestures={"momentum": True, "double_tap_zoom_factor": 2}) ==
          {"id": "map", "rect": [0, 0, 10, 10], "gestures": {"momentum": True, "double_tap_zoom_factor": 2}},
          "region gesture settings")
    for bad in (lambda: region("x"), lambda: region("x", rect=[0, 0, 1, 1], color="red")):
        try:
            bad()
            raise AssertionError("accepted a bad region")
        except (ValueError, TypeError):
            pass


TESTS = [test_hello_and_ping, test_bad_request_is_an_error_and_the_connection_stays,
         test_subscriber_receives_exactly_the_replay_output, test_predicting_subscriber_receives_the_predicted_replay,
         test_frame_aligned_subscriber_receives_its_touches_per_frame,
         test_frames_against_a_replay_are_timed_on_the_monotonic_clock,
         test_a_frame_aligned_client_gets_what_it_holds_when_the_daemon_stops,
         test_request_mid_stream_loses_no_message,
         test_typed_events, test_schema_rejects_what_the_daemon_must_not_send, test_fileno_and_read_available,
         test_read_available_never_blocks_with_a_timeout, test_requests_wait_for_their_reply,
         test_region_transform_and_typed_region_messages,
         test_reconnect_restores_the_subscription, test_asyncio_client, test_print_gestures_example,
         test_print_gestures_piped_to_head, test_map_example_applies_the_matrix,
         test_pip_installs_the_package, test_daemon_logs_for_the_journal,
         test_region_examples_each_get_only_their_own_touches, test_region_helper]


def main():
    args = sys.argv[1:]
    only = None
    if "-k" in args:
        i = args.index("-k")
        only = args[i + 1]
        del args[i:i + 2]
    if args:
        bin_dir = args[0]
    else:
        bin_dir = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True, capture_output=True,
                                 text=True).stdout.strip()
    passed = failed = 0
    for test in TESTS:
        if only and only not in test.__name__:
            continue
        tmp = tempfile.mkdtemp(prefix="mtd-py-")
        try:
            test(bin_dir, tmp)
            passed += 1
            print("ok    %s" % test.__name__, flush=True)
        except Exception:
            failed += 1
            print("FAIL  %s" % test.__name__)
            traceback.print_exc()
            log = os.path.join(tmp, "daemon.log")
            if os.path.exists(log):
                print("--- daemon log (tail):\n" + open(log, errors="replace").read()[-3000:])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
