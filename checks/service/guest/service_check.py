#!/usr/bin/env python3
"""Helpers for checks/service/guest-service-check.sh (run inside the QEMU guest).

  notify-listen SOCKET LOG   play systemd's notification socket: bind a datagram socket at SOCKET
                             (mode 0666, like /run/systemd/notify) and append every datagram to LOG
                             as one JSON line {"t": monotonic seconds, "pid": sender, "message": text}.
  client SOCKET LOG MARKER   connect, log the hello, subscribe to everything, log every message
                             until the daemon closes the connection; touch MARKER once a touch has
                             begun (so the caller knows fingers are down) and print a summary.
  connect-denied SOCKET      exit 0 when connecting fails with EACCES (the caller is not in the group).
  summarize LOG              print the phases seen per message type; exit 1 unless every active
                             touch and gesture ended as "cancelled" after the shutdown.
"""
import json
import os
import socket
import struct
import sys
import time


def notify_listen(path, log):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    os.chmod(path, 0o666)
    # Credentials of the sender, as systemd checks them for NotifyAccess=main.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    with open(log, "a", buffering=1) as out:
        while True:
            data, ancillary, _, _ = sock.recvmsg(4096, socket.CMSG_SPACE(12))
            pid = None
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                    pid = struct.unpack("iII", payload[:12])[0]
            out.write(json.dumps({"t": time.monotonic(), "pid": pid, "message": data.decode("utf-8", "replace")}) + "\n")


def client(path, log, marker):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    stream = sock.makefile("rb")
    touching = False
    count = 0
    with open(log, "w", buffering=1) as out:
        hello = stream.readline()
        out.write(hello.decode())
        sock.sendall(b'{"type":"subscribe","id":1}\n')
        for line in stream:
            out.write(line.decode())
            count += 1
            try:
                message = json.loads(line)
            except ValueError:
                print("client: not JSON: %r" % line[:200])
                continue
            if not touching and message.get("type") == "touches":
                if any(t.get("phase") == "began" for t in message.get("touches", [])):
                    touching = True
                    open(marker, "w").close()
    print("client: connection closed by the daemon after %d messages" % count)


def connect_denied(path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except PermissionError:
        print("connect-denied: EACCES, as expected")
        return 0
    except OSError as error:
        print("connect-denied: failed differently: %s" % error)
        return 1
    print("connect-denied: connected, but this user is not in the socket's group")
    return 1


def summarize(log):
    """Checks the shutdown: every touch that began and did not end is cancelled, every gesture segment
    that began and did not end is cancelled, and at least one of each was cancelled."""
    hello = None
    open_touches = {}
    open_segments = 0
    open_sessions = 0
    cancelled = {"touches": 0, "gesture": 0, "session": 0}
    phases = {}
    with open(log) as lines:
        for number, line in enumerate(lines, 1):
            message = json.loads(line)
            kind = message.get("type")
            if number == 1:
                hello = message
                continue
            if kind == "touches":
                for touch in message.get("touches", []):
                    phase = touch.get("phase")
                    phases.setdefault("touches", {}).setdefault(phase, 0)
                    phases["touches"][phase] += 1
                    key = (message.get("device"), touch.get("id"))
                    if phase == "began":
                        open_touches[key] = True
                    elif phase in ("ended", "cancelled"):
                        open_touches.pop(key, None)
                        if phase == "cancelled":
                            cancelled["touches"] += 1
            elif kind in ("gesture", "session"):
                phase = message.get("phase")
                phases.setdefault(kind, {}).setdefault(phase, 0)
                phases[kind][phase] += 1
                delta = 1 if phase == "began" else (-1 if phase in ("ended", "cancelled") else 0)
                if kind == "gesture":
                    open_segments += delta
                else:
                    open_sessions += delta
                if phase == "cancelled":
                    cancelled[kind] += 1
            else:
                phases.setdefault(kind, {}).setdefault("-", 0)
                phases[kind]["-"] += 1
    devices = hello.get("devices", []) if hello else []
    print("summary: hello type=%s devices=%s" % (hello and hello.get("type"), [d.get("name") for d in devices]))
    print("summary: phases %s" % json.dumps(phases, sort_keys=True))
    problems = []
    if open_touches:
        problems.append("touches never ended: %s" % sorted(open_touches))
    if open_segments != 0:
        problems.append("gesture segments began but not ended/cancelled: %d" % open_segments)
    if open_sessions != 0:
        problems.append("sessions began but not ended/cancelled: %d" % open_sessions)
    for kind in ("touches", "gesture", "session"):
        if cancelled[kind] == 0:
            problems.append("no %s message with phase cancelled" % kind)
    for problem in problems:
        print("summary: FAIL: " + problem)
    return 1 if problems else 0


def main(argv):
    command = argv[1] if len(argv) > 1 else ""
    if command == "notify-listen" and len(argv) == 4:
        notify_listen(argv[2], argv[3])
    elif command == "client" and len(argv) == 5:
        client(argv[2], argv[3], argv[4])
    elif command == "connect-denied" and len(argv) == 3:
        return connect_denied(argv[2])
    elif command == "summarize" and len(argv) == 3:
        return summarize(argv[2])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
