#!/usr/bin/env python3
"""`multitouchctl tuio` across a daemon restart, and `--exclusive` (issue 29 item 5).

A forwarder with `--region left:0,0,50,60 --exclusive` runs against a daemon that replays
clients/examples/regions/tap-and-pinch.evemu and waits for that region (`--wait-for-regions left`, so
it plays only once the forwarder declared it), then exits (`--exit-when-done`). Checked:

- the region's touches (the three that begin in the left half) go out as TUIO, normalized to it, and
  none of them reaches a whole-device client (`multitouchctl monitor`): the region is secure input;
- the forwarder outlives the daemon: it says it reconnects, connects to a second daemon on the same
  socket and declares its region there again, which is what starts that daemon's replay, and its
  touches go out too (one stream: the same encoder, fseq counting on).

Exit status 0 when everything holds. Loopback UDP only.
"""
import argparse
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qt_check import check, failures, osc_bundle, read, wait_for  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RECORDING = os.path.join(ROOT, "clients", "examples", "regions", "tap-and-pinch.evemu")
LEFT = (0, 0, 50, 60)


def start_daemon(args, sock, log):
    return subprocess.Popen(
        [args.daemon, "--socket", sock, "--no-devices", "--replay", RECORDING, "--speed", "4",
         "--wait-for-regions", "left", "--exit-when-done"], stderr=open(log, "w"))


def drain(receiver, into):
    while select.select([receiver], [], [], 0)[0]:
        into.append(receiver.recv(65536))


def sessions(datagrams):
    """TUIO session id -> the first position it was set at."""
    first = {}
    for data in datagrams:
        for _, args in osc_bundle(data)[1]:
            if args[0] == "set":
                first.setdefault(args[1], (args[2], args[3]))
    return first


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--daemon", default=os.path.join(ROOT, ".build", "debug", "multitouchd"))
    parser.add_argument("--ctl", default=os.path.join(ROOT, ".build", "debug", "multitouchctl"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tuio-forwarder-") as workdir:
        sock = os.path.join(workdir, "daemon.sock")
        receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        receiver.bind(("127.0.0.1", 0))
        port = receiver.getsockname()[1]
        forwarder_log = os.path.join(workdir, "tuio.log")
        first = start_daemon(args, sock, os.path.join(workdir, "first.log"))
        forwarder = None
        datagrams = [[], []]
        try:
            wait_for(lambda: os.path.exists(sock), 10, "the first daemon's socket")
            monitor_out = os.path.join(workdir, "monitor.jsonl")
            monitor = subprocess.Popen([args.ctl, "monitor", "--socket", sock, "--json", "--streams", "touches",
                                        "devices"], stdout=open(monitor_out, "w"))
            wait_for(lambda: '"subscribed"' in read(monitor_out), 10, "the monitor to subscribe")
            forwarder = subprocess.Popen(
                [args.ctl, "tuio", "--socket", sock, "--to", "127.0.0.1:%d" % port, "--region",
                 "left:%s" % ",".join(map(str, LEFT)), "--z", "5", "--exclusive"], stderr=open(forwarder_log, "w"))
            check(first.wait(60) == 0, "the first daemon played (the forwarder's region started it) and exited 0")
            monitor.wait(10)
            drain(receiver, datagrams[0])
            wait_for(lambda: "reconnecting" in read(forwarder_log), 10, "the forwarder to notice the daemon left")
            check(forwarder.poll() is None, "the forwarder outlives the daemon")
            second = start_daemon(args, sock, os.path.join(workdir, "second.log"))
            check(second.wait(60) == 0, "the second daemon played (the forwarder declared its region again)")
            drain(receiver, datagrams[1])
            check("connected again" in read(forwarder_log), "the forwarder says it connected again")
        finally:
            if forwarder and forwarder.poll() is None:
                forwarder.send_signal(signal.SIGTERM)
                forwarder.wait(10)
            for p in (first,):
                if p.poll() is None:
                    p.kill()
            receiver.close()
        began = {}
        for line in read(monitor_out).splitlines():
            message = json.loads(line)
            for t in message.get("touches", []) if message["type"] == "touches" else []:
                began.setdefault(t["id"], (t["x"], t["y"]))
        check(began and all(x >= LEFT[2] for x, _ in began.values()),
              "the whole-device stream has no touch of the exclusive region: %r" % began)
        for n, got in enumerate(datagrams):
            s = sessions(got)
            check(len(s) == 3 and all(0 <= x <= 1 and 0 <= y <= 1 for x, y in s.values()),
                  "daemon %d: the region's three touches, normalized to it: %r" % (n + 1, s))
        fseqs = [osc_bundle(d)[1][-1][1][1] for d in datagrams[0] + datagrams[1]]
        check(fseqs == list(range(1, len(fseqs) + 1)), "one stream across the restart: fseq 1...%d" % len(fseqs))
        print("forwarder: %d + %d datagrams from two daemons, whole-device touches %s; %s" % (
            len(datagrams[0]), len(datagrams[1]), sorted(began), read(forwarder_log).strip().replace("\n", " | ")))
    if failures:
        print("forwarder_check: %d failure(s)" % len(failures))
        return 1
    print("forwarder_check: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
