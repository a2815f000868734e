#!/usr/bin/env python3
"""Bystander probe (issue 19, docs/SECURITY.md, docs/PERFORMANCE.md "Trust between clients").

Starts a daemon replaying a recording in a loop, connects a bystander that subscribes to the whole
device and pings every 50 ms, and runs one stall scenario with one or more attacking clients of the
same user. Prints one JSON line: the bystander's worst and median round trip, its touch stream's
consistency (every touch began before it moved and ended once; `dropped` notices), the longest
silence in its touch stream while a touch was down, the daemon's peak RSS (VmHWM), how many of the
attackers' requests were refused (over-budget) and how long SIGTERM took.

Issue 28 adds floods of small requests: `tiny` (`1\n` as fast as the socket takes it), `frames`
(`frame` requests) and `transform` (`setTransform`), from --clients connections of each of --uids
users (`--uids 8` runs the attackers as 8 local users, made with useradd when missing: root only).

Timings are measured here, never asserted in unit tests. Usage:
  trust-probe.py --daemon .build/debug/multitouchd --scenario observers|opaque|masks|config|fifo|tiny|frames|transform
                 [--clients 1|16] [--uids 1|8] [--seconds 10] [--recording checks/fixtures/touchscreen-map-tour.evemu]
"""
import argparse
import base64
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HUGE = [-1e6, -1e6, 2e6, 2e6]  # a rect covering any device's published space


class Conn:
    """One client connection with a reader thread; replies are matched by id."""

    def __init__(self, path, on_message=None):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.replies = {}
        self.cv = threading.Condition()
        self.on_message = on_message
        self.devices = []
        self.closed = False
        self.hello = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        self.hello.wait(10)

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = self.sock.recv(1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                with self.cv:
                    self.closed = True
                    self.cv.notify_all()
                return
            buf += chunk
            *lines, buf = buf.split(b"\n")
            now = time.monotonic()
            for line in lines:
                m = json.loads(line)
                t = m.get("type")
                if t == "hello":
                    self.devices = [d["id"] for d in m.get("devices", [])]
                    self.hello.set()
                elif t == "deviceAdded":
                    self.devices.append(m["device"]["id"] if isinstance(m.get("device"), dict) else m.get("id"))
                elif t == "deviceRemoved":
                    dev = m.get("device")
                    self.devices = [d for d in self.devices if d != dev]
                if self.on_message:
                    self.on_message(m, now)
                if "id" in m and t not in ("touches",):
                    with self.cv:
                        self.replies[m["id"]] = (m, now)
                        self.cv.notify_all()

    def send(self, obj):
        self.sock.sendall((json.dumps(obj, separators=(",", ":")) + "\n").encode())

    def request(self, obj, timeout=30):
        rid = obj["id"]
        self.send(obj)
        deadline = time.monotonic() + timeout
        with self.cv:
            while rid not in self.replies and not self.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cv.wait(left)
            return self.replies.pop(rid, (None, 0))[0]


class Bystander:
    def __init__(self, path):
        self.rtts = []
        self.open = {}
        self.foreign = set()
        self.disconnected = False
        self.errors = []
        self.ended = set()
        self.violations = 0
        self.dropped = 0
        self.last_touch = None
        self.longest_silence = 0.0
        self.touch_messages = 0
        self.lock = threading.Lock()
        self.conn = Conn(path, self.on_message)
        self.conn.request({"type": "subscribe", "streams": ["touches"], "id": "sub"})
        self.stop = False
        self.thread = threading.Thread(target=self.ping_loop, daemon=True)
        self.thread.start()

    def on_message(self, m, now):
        t = m.get("type")
        if t == "dropped":
            self.dropped += 1
        if t == "error":
            self.errors.append(m.get("code"))
        if t == "deviceRemoved":
            self.open.pop(m.get("device"), None)
        if t != "touches" or "routing" in m:
            return
        with self.lock:
            self.touch_messages += 1
            dev = self.open.setdefault(m["device"], set())
            if dev and self.last_touch is not None:
                self.longest_silence = max(self.longest_silence, now - self.last_touch)
            self.last_touch = now
            for p in m["touches"]:
                ph, i = p["phase"], p["id"]
                if i in self.foreign:
                    continue
                if ph == "began":
                    if i in dev or i in self.ended:
                        self.violations += 1
                    dev.add(i)
                elif i in self.ended:
                    self.violations += 1  # something after its end
                elif i not in dev:
                    self.foreign.add(i)  # began before the bystander subscribed
                elif ph in ("ended", "cancelled"):
                    dev.discard(i)
                    self.ended.add(i)

    def ping_loop(self):
        n = 0
        while not self.stop:
            n += 1
            t0 = time.monotonic()
            r = self.conn.request({"type": "ping", "id": n}, timeout=60)
            if r is None:
                if self.conn.closed:
                    self.disconnected = True
                else:
                    self.rtts.append(60.0)
                return
            self.rtts.append(time.monotonic() - t0)
            time.sleep(max(0.0, 0.05 - (time.monotonic() - t0)))


def mask_bits(columns, rows, solid_every=0):
    bits = bytearray((columns * rows + 7) // 8)
    if solid_every:
        for k in range(0, columns * rows, solid_every):
            bits[k // 8] |= 0x80 >> (k % 8)
    return base64.b64encode(bytes(bits)).decode()


def regions_for(scenario, count, prefix):
    out = []
    for k in range(count):
        r = {"id": f"{prefix}{k}", "rect": HUGE, "z": k % 8}
        if scenario == "observers":
            r["mode"] = "observer"
        elif scenario == "masks":
            r["mode"] = "passthrough"
            r["mask"] = {"columns": 256, "rows": 256, "bits": mask_bits(256, 256, 4099)}
        out.append(r)
    return out


def chunks(regions, limit=56000):
    chunk, size = [], 0
    for r in regions:
        n = len(json.dumps(r)) + 1
        if chunk and size + n > limit:
            yield chunk
            chunk, size = [], 0
        chunk.append(r)
        size += n
    if chunk:
        yield chunk


class Attacker(threading.Thread):
    def __init__(self, path, scenario, count, index, stats):
        super().__init__(daemon=True)
        self.conn = Conn(path)
        # The devices stream only: to follow the replay's device from pass to pass.
        self.conn.request({"type": "subscribe", "streams": ["devices"], "id": "sub"})
        self.scenario, self.count, self.index, self.stats = scenario, count, index, stats
        self.stop = False
        self.n = 0

    def req(self, obj):
        self.n += 1
        obj["id"] = self.n
        r = self.conn.request(obj, timeout=120)
        with self.stats["lock"]:
            self.stats["requests"] += 1
            if r is None:
                self.stats["timeouts"] += 1
            elif r.get("type") == "error":
                self.stats["errors"][r.get("code")] = self.stats["errors"].get(r.get("code"), 0) + 1
        return r

    def run(self):
        try:
            self.attack()
        except OSError:
            pass  # the daemon went away (the end of the probe)

    def attack(self):
        declared_on = None
        regions = regions_for(self.scenario, self.count, f"c{self.index}r")
        hidden = False
        while not self.stop and not self.conn.closed:
            devs = list(self.conn.devices)
            if not devs:
                time.sleep(0.01)
                continue
            dev = devs[-1]
            if dev != declared_on:
                first = True
                for chunk in chunks(regions):
                    if first:
                        self.req({"type": "declareRegions", "device": dev, "regions": chunk})
                        first = False
                    else:
                        self.req({"type": "updateRegions", "device": dev, "regions": chunk})
                    if self.stop:
                        return
                declared_on = dev
                continue
            if self.scenario == "opaque":
                hidden = not hidden
                r = dict(regions[0])
                r["hidden"] = hidden
                self.req({"type": "updateRegions", "device": dev, "regions": [r]})
            else:
                time.sleep(0.05)


def run_attackers(sock, scenario, count, clients, seconds, results):
    stats = {"lock": threading.Lock(), "requests": 0, "timeouts": 0, "errors": {}}
    attackers = [Attacker(sock, scenario, count, k, stats) for k in range(clients)]
    for t in attackers:
        t.start()
    time.sleep(seconds)
    with stats["lock"]:
        results.put({"requests": stats["requests"], "timeouts": stats["timeouts"], "errors": dict(stats["errors"])})
    for t in attackers:
        t.stop = True


FLOODS = ("tiny", "frames", "transform")
CHILD_PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def flood_lines(scenario, device):
    if scenario == "tiny":
        return b"1\n" * 32768
    if scenario == "frames":
        return b'{"type":"frame","time":1.000000}\n' * 2048
    line = '{"type":"setTransform","device":%d,"matrix":[1,0,0,1,%d,0]}\n'
    return "".join(line % (device, k) for k in range(1024)).encode()


def flood_child(path, scenario, clients, seconds):
    """One user's attack: `clients` connections writing `scenario` lines as fast as the daemon reads
    them, each reading (and discarding) its replies so that its own queue never closes it."""
    done = time.monotonic() + seconds
    counts = []

    def one():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        hello = b""
        while b"\n" not in hello:
            hello += s.recv(65536)
        devices = [d["id"] for d in json.loads(hello.split(b"\n")[0]).get("devices", [])] or [1]
        if scenario == "frames":
            s.sendall(b'{"type":"subscribe","frames":true,"streams":["touches"]}\n')
        payload = flood_lines(scenario, devices[-1])
        got = [0]

        def drain():
            while True:
                try:
                    chunk = s.recv(1 << 20)
                except OSError:
                    return
                if not chunk:
                    return
                got[0] += chunk.count(b"\n")

        threading.Thread(target=drain, daemon=True).start()
        sent = 0
        while time.monotonic() < done:
            try:
                s.sendall(payload)
            except OSError:
                break
            sent += payload.count(b"\n")
        counts.append((sent, got[0]))
        s.close()

    threads = [threading.Thread(target=one) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({"sent": sum(c[0] for c in counts), "answered": sum(c[1] for c in counts)}))


def user_ids(count):
    """uids for `count` attacking users, none of them the bystander's: probe users (useradd) when
    root, else this process's own (one user only: then the bystander shares the attacker's budget)."""
    if os.geteuid() != 0:
        if count > 1:
            sys.exit("trust-probe: --uids above 1 needs root (useradd, setuid)")
        return [None]
    uids = []
    for k in range(count):
        name = f"mtprobe{k}"
        if subprocess.run(["id", "-u", name], capture_output=True).returncode != 0:
            subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
        uids.append(int(subprocess.run(["id", "-u", name], capture_output=True, text=True).stdout))
    return uids


def peak_rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--daemon", required=True)
    ap.add_argument("--scenario", required=True,
                    choices=["observers", "opaque", "masks", "config", "fifo", "none", *FLOODS])
    ap.add_argument("--uids", type=int, default=1, help="flooding users (more than 1: root, useradd)")
    ap.add_argument("--clients", type=int, default=1)
    ap.add_argument("--count", type=int, help="regions per attacker (default: the issue's numbers)")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--speed", default="1", help="replay speed (below 1 keeps each device longer)")
    ap.add_argument("--recording", default=os.path.join(os.path.dirname(__file__), "../fixtures/touchscreen-map-tour.evemu"))
    a = ap.parse_args()
    count = a.count or {"observers": 4096, "opaque": 4096, "masks": 3300}.get(a.scenario, 0)
    tmp = tempfile.mkdtemp(prefix="trust-probe-")
    os.chmod(tmp, 0o755)  # other users' attackers reach the socket
    sock = os.path.join(tmp, "mtd.sock")
    config = os.path.join(tmp, "mtd.toml")
    with open(config, "w") as f:
        f.write('[socket]\ngroup = ""\nmode = "0666"\n[clients]\nmax_clients_per_user = 64\nmax_clients = 256\n')
    log = open(os.path.join(tmp, "daemon.log"), "w")
    daemon = subprocess.Popen(
        [a.daemon, "--config", config, "--socket", sock, "--no-devices", "--replay", a.recording, "--loop", "--speed", a.speed],
        stderr=log, stdout=subprocess.DEVNULL)
    try:
        run_probe(a, count, tmp, sock, config, daemon)
    finally:
        # Whatever failed above (a user the attackers cannot run as...), no daemon is left behind.
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
        log.close()
        subprocess.run(["rm", "-rf", tmp])


def run_probe(a, count, tmp, sock, config, daemon):
    for _ in range(500):
        if os.path.exists(sock):
            break
        time.sleep(0.01)
    time.sleep(0.2)
    by = Bystander(sock)
    stats = {"lock": threading.Lock(), "requests": 0, "timeouts": 0, "errors": {}}
    attackers = []
    attack = None
    if a.scenario in ("observers", "opaque", "masks"):
        # The attackers run in a process of their own: sharing the bystander's interpreter lock would
        # add their JSON work to its round trips.
        results = multiprocessing.Queue()
        attack = multiprocessing.Process(
            target=run_attackers, args=(sock, a.scenario, count, a.clients, a.seconds + 2, results), daemon=True)
        attack.start()
    elif a.scenario in FLOODS:
        floods = []
        for uid in user_ids(a.uids):
            floods.append(subprocess.Popen(
                # The system's python: another user may not reach this one (pyenv under /root).
                [CHILD_PYTHON if uid is not None else sys.executable, os.path.abspath(__file__), "--flood-child", sock, a.scenario, str(a.clients),
                 str(a.seconds + 1)],
                user=uid, stdout=subprocess.PIPE, text=True))
    elif a.scenario == "config":
        time.sleep(1)
        # A valid 16 MiB file: device rules, each parsed and checked.
        rule = '[[devices.rule]]\naction = "exclude"\nname = "no such device*"\n'
        with open(config, "w") as f:
            f.write('[socket]\ngroup = ""\n[clients]\nmax_clients_per_user = 64\nmax_clients = 128\n')
            f.write(rule * (16 * 1024 * 1024 // len(rule) - 2))
        for _ in range(3):
            daemon.send_signal(1)
            time.sleep(a.seconds / 4)
    elif a.scenario == "fifo":
        time.sleep(1)
        os.unlink(config)
        os.mkfifo(config)
        daemon.send_signal(1)
    time.sleep(a.seconds)
    rss = peak_rss_mib(daemon.pid)
    by.stop = True
    time.sleep(0.1)
    t0 = time.monotonic()
    daemon.terminate()
    try:
        daemon.wait(timeout=60)
        term = time.monotonic() - t0
    except subprocess.TimeoutExpired:
        term = None
        daemon.kill()
        daemon.wait()
    by.stop = True
    if a.scenario in FLOODS:
        for child in floods:
            try:
                out, _ = child.communicate(timeout=30)
                r = json.loads(out.strip().splitlines()[-1])
                stats["requests"] += r["sent"]
                stats["errors"]["answered"] = stats["errors"].get("answered", 0) + r["answered"]
            except Exception:
                child.kill()
    if attack is not None:
        try:
            stats.update(results.get(timeout=30))
        except Exception:
            pass
        attack.terminate()
    rtts = sorted(by.rtts) or [0]
    print(json.dumps({
        "scenario": a.scenario, "clients": a.clients, "uids": a.uids, "regions_per_client": count,
        "pings": len(by.rtts), "bystander_disconnected": by.disconnected, "bystander_errors": sorted(set(by.errors)), "worst_rtt_ms": round(rtts[-1] * 1000, 1),
        "median_rtt_ms": round(statistics.median(rtts) * 1000, 2),
        "touch_messages": by.touch_messages, "stream_violations": by.violations, "dropped_notices": by.dropped,
        "longest_touch_silence_ms": round(by.longest_silence * 1000, 1),
        "peak_rss_mib": rss and round(rss, 1), "sigterm_s": term and round(term, 3),
        "attacker_requests": stats["requests"], "attacker_timeouts": stats["timeouts"], "attacker_errors": stats["errors"],
    }))


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--flood-child":
        flood_child(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
    else:
        main()
