#!/usr/bin/env python3
"""The bridge at its descriptor limit (issue 19): it must neither spin nor stop serving.

    python3 checks/web/bridge-fd-limit.py BIN_DIR

Starts `multitouchctl bridge` with RLIMIT_NOFILE 64, holds 100 silent TCP connections to it, prints the
bridge's CPU use over 5 s, then frees half of them and checks that a page is served again. A manual
probe (the CPU figure depends on the machine), not a CI stage; docs/SECURITY.md ("The WebSocket bridge") has the
figures (80 % CPU and no service before the connection budget, 0.2 % and served after).
"""
import os
import resource
import socket
import subprocess
import sys
import time

bin_dir = sys.argv[1] if len(sys.argv) > 1 else ".build/debug"


def limit():
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))


bridge = subprocess.Popen([os.path.join(bin_dir, "multitouchctl"), "bridge", "--listen", "127.0.0.1:0",
                           "--socket", "/nonexistent.sock"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True, preexec_fn=limit)
try:
    port = int(bridge.stdout.readline().split("127.0.0.1:")[1].split("/")[0])
    held = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(100)]
    time.sleep(1)

    def cpu_ticks():
        with open(f"/proc/{bridge.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    start, began = cpu_ticks(), time.time()
    time.sleep(5)
    percent = 100.0 * (cpu_ticks() - start) / os.sysconf("SC_CLK_TCK") / (time.time() - began)
    print(f"bridge CPU with 100 connections at a 64-descriptor limit: {percent:.1f} %")
    for s in held[:50]:
        s.close()
    answer = b""
    for _ in range(100):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /multitouch.js HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            answer = s.recv(64)
            s.close()
        except OSError:
            answer = b""
        if answer.startswith(b"HTTP/1.1 200"):
            break
        time.sleep(0.1)
    print("served after freeing descriptors:", answer.startswith(b"HTTP/1.1 200"))
    sys.exit(0 if answer.startswith(b"HTTP/1.1 200") and percent < 20 else 1)
finally:
    bridge.kill()
    bridge.wait()
