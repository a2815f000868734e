#!/usr/bin/env python3
"""Device matrix, step 2 (in the guest): makes each planned device through uhid (hid-tools'
UHIDDevice, answering the kernel's feature requests), waits until the running multitouchd has picked
its nodes up (live discovery, as shipped), plays the scenarios' input reports at their times, and keeps
three records per device: the raw evdev events the kernel produced (read from every node of the device:
the kernel's truth), every line a socket client of the daemon received, and `multitouchctl devices
--json`. The host judges them (judge.py).

usage: play.py PLAN_DIR OUT_DIR SOCKET MULTITOUCHCTL NAME...
"""
import fcntl
import json
import os
import select
import socket
import struct
import subprocess
import sys
import threading
import time

from hidtools.uhid import UHIDDevice

GAP_S = 0.45  # between scenarios (plan.py GAP_MS)
EVENT = struct.Struct("llHHi")  # struct input_event on 64-bit Linux


def ioc(direction, type_, nr, size):
    return (direction << 30) | (size << 16) | (ord(type_) << 8) | nr


EVIOCGNAME = ioc(2, "E", 0x06, 256)
EVIOCGPROP = ioc(2, "E", 0x09, 8)
EVIOCGBIT_KEY = ioc(2, "E", 0x20 + 1, 96)
EVIOCGBIT_ABS = ioc(2, "E", 0x20 + 3, 8)
EVIOCSCLOCKID = ioc(1, "E", 0xA0, 4)
CLOCK_MONOTONIC = 1


def eviocgabs(code):
    return ioc(2, "E", 0x40 + code, 24)


def bits(buffer):
    out = []
    for i, byte in enumerate(buffer):
        for b in range(8):
            if byte & (1 << b):
                out.append(i * 8 + b)
    return out


def describe(fd):
    """What the kernel presents: name, properties, keys, absolute axes with range and resolution."""
    name = fcntl.ioctl(fd, EVIOCGNAME, bytes(256)).split(b"\0")[0].decode(errors="replace")
    props = bits(fcntl.ioctl(fd, EVIOCGPROP, bytes(8)))
    keys = bits(fcntl.ioctl(fd, EVIOCGBIT_KEY, bytes(96)))
    axes = {}
    for code in bits(fcntl.ioctl(fd, EVIOCGBIT_ABS, bytes(8))):
        value, minimum, maximum, fuzz, flat, resolution = struct.unpack("6i", fcntl.ioctl(fd, eviocgabs(code), bytes(24)))
        axes[str(code)] = [minimum, maximum, fuzz, resolution]
    return {"name": name, "props": props, "keys": keys, "axes": axes}


class Device(UHIDDevice):
    def __init__(self, plan):
        super().__init__()
        self.features = {int(k): v for k, v in plan["features"].items()}
        self.name = "mtx " + plan["name"]
        self.info = (plan["bus"], plan["vendor"], plan["product"])
        self.rdesc = plan["rdesc"]

    def get_report(self, req, rnum, rtype):
        data = self.features.get(rnum)
        if data is None and rnum == 0:
            data = self.features.get(-1)
        return (0, data) if data is not None else (5, [])

    def set_report(self, req, rnum, rtype, data):
        return 0


class SocketClient:
    """A socket client of the daemon: subscribes to everything, keeps every line with its arrival."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.lines = []
        self.buffer = b""
        self.sock.sendall(b'{"type":"subscribe"}\n')
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while True:
            data = self.sock.recv(1 << 16)
            if not data:
                return
            self.buffer += data
            *whole, self.buffer = self.buffer.split(b"\n")
            for line in whole:
                self.lines.append(line.decode())

    def wait_for(self, predicate, start, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in self.lines[start:]:
                if predicate(line):
                    return True
            time.sleep(0.02)
        return False


class EvdevReader:
    """Reads the raw events of every node of the device (the kernel's view), times on CLOCK_MONOTONIC."""

    def __init__(self, nodes):
        self.events = {node: [] for node in nodes}
        self.fds = {}
        self.info = {}
        for node in nodes:
            fd = os.open(node, os.O_RDONLY | os.O_NONBLOCK)
            fcntl.ioctl(fd, EVIOCSCLOCKID, struct.pack("i", CLOCK_MONOTONIC))
            self.fds[fd] = node
            self.info[node] = describe(fd)
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        size = EVENT.size
        while not self.stop:
            ready, _, _ = select.select(list(self.fds), [], [], 0.05)
            for fd in ready:
                try:
                    data = os.read(fd, size * 512)
                except OSError:
                    continue
                out = self.events[self.fds[fd]]
                for offset in range(0, len(data) - size + 1, size):
                    sec, usec, type_, code, value = EVENT.unpack_from(data, offset)
                    out.append([sec * 1_000_000 + usec, type_, code, value])

    def close(self):
        self.stop = True
        self.thread.join()
        for fd in self.fds:
            os.close(fd)


def play_device(plan, client, ctl, out_dir):
    result = {"name": plan["name"], "errors": []}
    mark = len(client.lines)
    device = Device(plan)
    device.create_kernel_device()
    nodes = []
    end = time.monotonic() + 60
    stable = 0
    while time.monotonic() < end:
        UHIDDevice.dispatch(10)
        now = sorted(device.device_nodes)
        stable = stable + 1 if now and now == nodes else 0
        nodes = now
        if stable >= 5 and all(os.path.exists(n) for n in nodes):
            break
    result["nodes"] = nodes
    if not nodes:
        result["errors"].append("the kernel made no evdev node")
        device.destroy()
        return result
    reader = EvdevReader(nodes)
    result["evdev"] = reader.info
    served = [n for n, i in reader.info.items() if "53" in i["axes"] or "0" in i["axes"]]
    # The daemon's live discovery picks the nodes up by itself (inotify on /dev/input in the guest).
    added = client.wait_for(
        lambda line: '"type":"deviceAdded"' in line and any(f'"source":"{n}"' in line for n in served), mark, 60)
    if not added:
        result["errors"].append("the daemon announced none of the device's nodes within 60 s")
    UHIDDevice.dispatch(200)
    listing = subprocess.run([ctl, "devices", "--json"], capture_output=True, text=True, timeout=60)
    result["devices"] = [line for line in listing.stdout.splitlines() if any(f'"path":"{n}"' in line for n in nodes)]
    windows = []
    start = time.monotonic() + 0.1
    for scenario in plan["scenarios"]:
        UHIDDevice.dispatch(0)
        begin = start
        for frame in scenario["frames"]:
            target = begin + frame["t"] / 1000
            delay = target - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            for report in frame["reports"]:
                device.call_input_event(report)
        last = time.monotonic()
        windows.append({"name": scenario["name"], "start": int(begin * 1e6) - 2000, "end": int(last * 1e6)})
        start = last + GAP_S
    delay = start - time.monotonic()
    if delay > 0:
        time.sleep(delay)
    UHIDDevice.dispatch(0)
    result["windows"] = windows
    time.sleep(0.3)
    reader.close()
    removed_mark = len(client.lines)
    device.destroy()
    if not client.wait_for(lambda line: '"type":"deviceRemoved"' in line, removed_mark, 10):
        result["errors"].append("no deviceRemoved within 10 s of the device's destruction")
    time.sleep(0.2)
    result["socket"] = client.lines[mark:]
    result["kernel"] = reader.events
    return result


def main():
    plan_dir, out_dir, sock, ctl, *names = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    client = SocketClient(sock)
    if not client.wait_for(lambda line: '"type":"subscribed"' in line, 0, 10):
        print("play: the daemon did not answer the subscription", file=sys.stderr)
        return 2
    for name in names:
        with open(os.path.join(plan_dir, name + ".json")) as f:
            plan = json.load(f)
        t0 = time.monotonic()
        try:
            result = play_device(plan, client, ctl, out_dir)
        except Exception as error:  # one device's trouble is its own row, not the end of the run
            result = {"name": name, "errors": [f"player: {type(error).__name__}: {error}"]}
        result["seconds"] = round(time.monotonic() - t0, 2)
        with open(os.path.join(out_dir, name + ".json"), "w") as f:
            json.dump(result, f)
        print(f"play: {name}: {len(result.get('socket', []))} lines, {result['seconds']} s"
              + (f", {result['errors']}" if result["errors"] else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
