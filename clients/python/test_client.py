#!/usr/bin/env python3
"""Tests the Python client against the real daemon.

    python3 clients/python/test_client.py [BIN_DIR]

BIN_DIR holds the built `multitouchd` and `multitouchctl` (default: `swift build --show-bin-path`).
Prints one line per test and "N passed, M failed"; exits non-zero when any test failed.
"""

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
sys.path.insert(0, HERE)
from multitouchd_client import Client, ProtocolError  # noqa: E402

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


class Daemon:
    def __init__(self, bin_dir, tmp, args):
        self.socket = os.path.join(tmp, "mtd-%d.sock" % time.monotonic_ns())
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


def test_hello_and_ping(bin_dir, tmp):
    d = Daemon(bin_dir, tmp, [])
    try:
        with Client(d.socket) as c:
            check(c.hello["protocol"] == 1, "protocol 1")
            check(c.hello["daemon"].startswith("multitouchd "), "daemon name")
            c.ping(42)
            check(c.receive() == {"type": "pong", "id": 42}, "pong echoes the id")
            reply = c.request({"type": "stats"}, "stats")
            check(len(reply["clients"]) == 1, "stats lists this client")
    finally:
        check(d.stop() == 0, "clean exit")


def test_bad_request_is_an_error_and_the_connection_stays(bin_dir, tmp):
    d = Daemon(bin_dir, tmp, [])
    try:
        with Client(d.socket) as c:
            c._sock.sendall(b"this is not json\n")
            error = c.receive()
            check(error["type"] == "error" and error["code"] == "invalid-json" and error["fatal"] is False, repr(error))
            try:
                c.request({"type": "resetTransform", "device": 99}, "transform")
                check(False, "unknown device must be an error")
            except ProtocolError as e:
                check("unknown-device" in str(e), str(e))
            c.ping("still-here")
            check(c.receive()["id"] == "still-here", "connection kept")
    finally:
        d.stop()


def test_subscriber_receives_exactly_the_replay_output(bin_dir, tmp):
    path = os.path.join(tmp, "pinch.evemu")
    with open(path, "w") as f:
        f.write(pinch_recording(150))
    expected = subprocess.run(
        [os.path.join(bin_dir, "multitouchctl"), "replay", "--json", path], check=True, capture_output=True, text=True
    ).stdout.splitlines()
    check(any(json.loads(l)["type"] == "gesture" for l in expected), "the recording makes gestures")
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "50", "--wait-for-subscribers", "1"])
    try:
        with Client(d.socket) as c:
            c.subscribe()
            got = []
            while True:
                line = c.receive_line()
                check(line is not None, "connection open until the replay ends")
                kind = json.loads(line)["type"]
                if kind in ("subscribed",):
                    continue
                got.append(line.decode("utf-8"))
                if kind == "deviceRemoved":
                    break
            check(got == expected, "got %d lines, expected %d; first difference: %r" % (
                len(got), len(expected), next(((g, e) for g, e in zip(got, expected) if g != e), None)))
    finally:
        d.stop()


def test_print_gestures_example(bin_dir, tmp):
    path = os.path.join(tmp, "pinch2.evemu")
    with open(path, "w") as f:
        f.write(pinch_recording(60))
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "20", "--wait-for-subscribers", "1"])
    example = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "examples", "print_gestures.py"), d.socket],
        stdout=subprocess.PIPE, text=True)
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
    for bad in (lambda: region("x"), lambda: region("x", rect=[0, 0, 1, 1], color="red")):
        try:
            bad()
            raise AssertionError("accepted a bad region")
        except (ValueError, TypeError):
            pass


def main():
    if len(sys.argv) > 1:
        bin_dir = sys.argv[1]
    else:
        root = os.path.dirname(os.path.dirname(HERE))
        bin_dir = subprocess.run(["swift", "build", "--show-bin-path"], cwd=root, check=True, capture_output=True,
                                 text=True).stdout.strip()
    tests = [test_hello_and_ping, test_bad_request_is_an_error_and_the_connection_stays,
             test_subscriber_receives_exactly_the_replay_output, test_print_gestures_example,
             test_region_examples_each_get_only_their_own_touches, test_region_helper]
    passed = failed = 0
    for test in tests:
        tmp = tempfile.mkdtemp(prefix="mtd-py-")
        try:
            test(bin_dir, tmp)
            passed += 1
            print("ok    %s" % test.__name__)
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
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
