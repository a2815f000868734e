#!/usr/bin/env python3
"""Measures multitouchd serving N clients: per-frame latency (device read -> last client write, from
the daemon's own stats), idle wake-ups and memory.

    python3 clients/python/bench_server.py BIN_DIR [--clients 8] [--frames 6000] [--speed 5] [--nice N] [--realtime]
        [--tuio live|gone] [--region-elsewhere]

BIN_DIR holds the `multitouchd` to measure (use a release build). Prints a small report, with the
daemon's CPU time (/proc/PID/schedstat) over the replay per frame and per frame and client.
--tuio adds a [tuio] target on 127.0.0.1 (docs/TUIO.md): `live`, a reader counting the datagrams, or
`gone`, a port nobody listens on (what a TUIO receiver that has quit costs the daemon).
--region-elsewhere replays the pinch on device 1 of a two-device recording (libinput record) and has
each client declare a region on the idle device 2 first: what routing costs the device nobody routes.
"""

import argparse
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from multitouchd_client import Client  # noqa: E402
from test_client import pinch_recording  # noqa: E402


def proc_status(pid):
    fields = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def cpu_ns(pid):
    """CPU time the process has used so far, in ns (/proc/PID/schedstat: on-CPU time first)."""
    with open("/proc/%d/schedstat" % pid) as f:
        return int(f.read().split()[0])


def two_device_recording(frames):
    """libinput record: the pinch on device 1 (the evemu test touchscreen), an idle twin as device 2."""
    frames_out, current = [], []
    for line in pinch_recording(frames).splitlines():
        if not line.startswith("E: "):
            continue
        t, typ, code, value = line[3:].split()
        sec, usec = t.split(".")
        current.append("    - [%s, %d, %d, %d, %s]" % (sec, int(usec), int(typ, 16), int(code, 16), value))
        if typ == "0000" and code == "0000":
            frames_out.append("  - evdev:\n" + "\n".join(current))
            current = []

    def device(node, name, events):
        return ("- node: /dev/input/%s\n  evdev:\n    name: \"%s\"\n    id: [24, 0, 0, 0]\n"
                "    codes:\n      0: [0, 1, 2, 3]\n      1: [330]\n      3: [0, 1, 47, 53, 54, 57]\n"
                "    absinfo:\n      0: [0, 1000, 0, 0, 10]\n      1: [0, 600, 0, 0, 10]\n      47: [0, 9, 0, 0, 0]\n"
                "      53: [0, 1000, 0, 0, 10]\n      54: [0, 600, 0, 0, 10]\n      57: [0, 65535, 0, 0, 0]\n"
                "    properties: [1]\n  events:\n%s\n" % (node, name, events))
    return ("version: 1\nndevices: 2\nlibinput:\n  version: \"1.22.1\"\nsystem:\n  kernel: \"6.1\"\ndevices:\n"
            + device("event0", "bench pinch", "\n".join(frames_out))
            + device("event1", "bench idle twin", "  - evdev:\n    - [1, 0, 0, 0, 0]"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--frames", type=int, default=6000)
    parser.add_argument("--speed", type=float, default=5)
    parser.add_argument("--idle-seconds", type=float, default=10)
    parser.add_argument("--realtime", action="store_true",
                        help="run the daemon with SCHED_FIFO (chrt -f 10) to separate its own cost from a busy machine")
    parser.add_argument("--nice", type=int,
                        help="run the daemon at this nice value (normal scheduling; negative needs root)")
    parser.add_argument("--region-elsewhere", action="store_true",
                        help="two devices; every client declares a region on device 2, the pinch plays on device 1")
    parser.add_argument("--tuio", choices=["live", "gone"],
                        help="also send TUIO to a loopback reader (live) or to a port nobody listens on (gone)")
    args = parser.parse_args()

    tuio_socket = None
    tuio_datagrams = [0]
    if args.tuio:
        tuio_socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        tuio_socket.bind(("127.0.0.1", 0))
        tuio_port = tuio_socket.getsockname()[1]
        if args.tuio == "gone":
            tuio_socket.close()
            tuio_socket = None
        else:
            def tuio_reader():
                while tuio_socket is not None:
                    ready, _, _ = select.select([tuio_socket], [], [], 0.2)
                    if ready:
                        tuio_socket.recv(65536)
                        tuio_datagrams[0] += 1
            threading.Thread(target=tuio_reader, daemon=True).start()

    tmp = tempfile.mkdtemp(prefix="mtd-bench-")
    try:
        path = os.path.join(tmp, "pinch.yml" if args.region_elsewhere else "pinch.evemu")
        with open(path, "w") as f:
            f.write(two_device_recording(args.frames) if args.region_elsewhere else pinch_recording(args.frames))
        sock = os.path.join(tmp, "mtd.sock")
        # The defaults (max_clients 64, max_clients_per_user 16) would refuse the measured clients, all
        # of one user, and the observer that asks for `stats` after the replay: allow one more.
        config = os.path.join(tmp, "multitouchd.toml")
        with open(config, "w") as f:
            f.write("[clients]\nmax_clients = %d\nmax_clients_per_user = %d\n" % (args.clients + 1, args.clients + 1))
            if args.tuio:
                f.write("[tuio]\ntargets = [\"127.0.0.1:%d\"]\n" % tuio_port)
        log = open(os.path.join(tmp, "daemon.log"), "wb")
        prefix = ["chrt", "-f", "10"] if args.realtime else []
        if args.nice is not None:
            prefix = ["nice", "-n", str(args.nice)] + prefix
        daemon = subprocess.Popen(
            prefix + [os.path.join(args.bin_dir, "multitouchd"), "--config", config, "--socket", sock, "--no-devices", "--log-level", "warning",
             "--replay", path, "--speed", str(args.speed), "--wait-for-subscribers", str(args.clients)],
            stderr=log)
        for _ in range(500):
            if os.path.exists(sock):
                break
            time.sleep(0.01)
        time.sleep(0.1)
        rss_start = proc_status(daemon.pid)["VmRSS"]
        counts = [0] * args.clients
        dropped = [0] * args.clients

        def reader(i, client):
            for message in client.messages():
                counts[i] += 1
                if message["type"] == "dropped":
                    dropped[i] += message["count"]
                if message["type"] == "deviceRemoved":
                    return

        clients = [Client(sock) for _ in range(args.clients)]
        threads = []
        for i, c in enumerate(clients):
            if args.region_elsewhere:
                c.request({"type": "declareRegions", "device": 2,
                           "regions": [{"id": "elsewhere", "rect": [0, 0, 10, 10]}]}, "regions")
            c.subscribe()
            t = threading.Thread(target=reader, args=(i, c))
            t.start()
            threads.append(t)
        started = time.monotonic()
        cpu_start = cpu_ns(daemon.pid)
        for t in threads:
            t.join()
        elapsed = time.monotonic() - started
        cpu_used = cpu_ns(daemon.pid) - cpu_start
        with Client(sock) as observer:
            stats = observer.request({"type": "stats"}, "stats")
        rss_after = proc_status(daemon.pid)["VmRSS"]
        for c in clients:
            c.close()
        time.sleep(0.5)
        before = proc_status(daemon.pid)
        time.sleep(args.idle_seconds)
        after = proc_status(daemon.pid)
        idle_switches = (int(after["voluntary_ctxt_switches"]) - int(before["voluntary_ctxt_switches"])
                         + int(after["nonvoluntary_ctxt_switches"]) - int(before["nonvoluntary_ctxt_switches"]))
        daemon.terminate()
        daemon.wait(timeout=10)

        latency = stats["latency"]
        print("clients: %d, frames: %d, speed %.1fx (%.0f frames/s), %.1f s" % (
            args.clients, args.frames, args.speed, 100 * args.speed, elapsed))
        print("messages per client: %s; coalesced per client: %s" % (counts, dropped))
        print("latency batches measured: %d, deferred (a client had a backlog): %d" % (latency["count"], latency["deferred"]))
        recent = latency.get("recent", {})
        print("device read -> last client write: p50 %.1f us, p99 %.1f us, max %.1f us (recent %d batches)" % (
            recent.get("p50", -1), recent.get("p99", -1), latency["max"], recent.get("samples", 0)))
        print("histogram (log2 us buckets, lt = upper bound): %s" % json.dumps(latency["buckets"]))
        frames = max(1, args.frames)
        print("daemon CPU: %.1f ms for the replay, %.2f us per frame, %.2f us per frame per client" % (
            cpu_used / 1e6, cpu_used / 1e3 / frames, cpu_used / 1e3 / frames / max(1, args.clients)))
        print("RSS: %s at start, %s after the replay" % (rss_start, rss_after))
        if args.tuio == "live":
            print("tuio: %d datagrams received (%.0f per second)" % (tuio_datagrams[0], tuio_datagrams[0] / max(elapsed, 1e-9)))
        elif args.tuio == "gone":
            print("tuio: sent to a port nobody listens on")
        print("idle: %d context switches in %.0f s with no input and no clients" % (idle_switches, args.idle_seconds))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
