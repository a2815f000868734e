#!/usr/bin/env python3
"""Checks multitouchctl's behaviour at its edges (exit statuses, messages, stats, monitor).

    python3 checks/cli/test_cli.py [BIN_DIR]

Each check runs the real binaries; a daemon is started for stats and monitor. Prints one line per
check and a summary; exits non-zero when any failed.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
from test_client import Daemon, check, write_pinch  # noqa: E402


def ctl(bin_dir, *args, cwd=None):
    return subprocess.run([os.path.join(bin_dir, "multitouchctl"), *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def no_dump(r):
    text = r.stdout + r.stderr
    check("Error Domain=" not in text and "NSError" not in text and "UserInfo=" not in text, "raw Foundation error: " + text)


def test_check_empty_directory_fails(bin_dir, tmp):
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    open(os.path.join(empty, "notes.txt"), "w").write("no recordings here\n")
    r = ctl(bin_dir, "check", empty)
    check(r.returncode != 0, "exit %d: %s" % (r.returncode, r.stdout))
    check("no recordings" in r.stdout, r.stdout)


def test_check_descends_pairs_and_skips(bin_dir, tmp):
    # Sub-folders with spaces in their names, an events-only file paired with its .desc, a description
    # no events file uses (SKIP with the reason, not passed), and a folder given twice checked once.
    top = os.path.join(tmp, "top")
    sub = os.path.join(top, "touch pads")
    os.makedirs(sub)
    shutil.copy(os.path.join(ROOT, "checks", "fixtures", "touchscreen-pinch-rotate.evemu"), top)
    lines = open(os.path.join(ROOT, "checks", "fixtures", "single-touch.evemu")).read().splitlines(True)
    described = "".join(l for l in lines if not l.lstrip().startswith("E:"))
    open(os.path.join(sub, "Some Pad.desc"), "w").write(described)
    open(os.path.join(sub, "Some Pad.drag.events"), "w").write("".join(l for l in lines if l.lstrip().startswith("E:")))
    open(os.path.join(sub, "Lonely Pad.desc"), "w").write(described)
    r = ctl(bin_dir, "check", top, sub)
    check(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stdout))
    check("PASS Some Pad.drag.events" in r.stdout and "PASS touchscreen-pinch-rotate.evemu" in r.stdout, r.stdout)
    check(any(l.startswith("SKIP ") and "Lonely Pad.desc" in l and "without events" in l
              for l in r.stdout.splitlines()), r.stdout)
    check("check: 2 passed, 0 failed, 1 skipped" in r.stdout, r.stdout)
    check(" pin=" in r.stdout and " step=" in r.stdout, r.stdout)


def test_replay_and_check_of_a_desc_fail(bin_dir, tmp):
    desc = os.path.join(tmp, "device.desc")
    shutil.copy(os.path.join(ROOT, "checks", "fixtures", "single-touch.evemu"), desc)
    for args in (("replay", desc), ("check", desc)):
        r = ctl(bin_dir, *args)
        check(r.returncode != 0, "%s exit %d" % (args[0], r.returncode))
        check("--desc" in r.stdout + r.stderr, "%s says how: %s" % (args[0], r.stdout + r.stderr))


def test_generate_needs_a_directory_and_says_why(bin_dir, tmp):
    r = ctl(bin_dir, "generate", cwd=tmp)
    check(r.returncode != 0 and not os.path.exists(os.path.join(tmp, "tests")), "no default directory")
    r = ctl(bin_dir, "generate", "-o", "/etc/passwd")
    check(r.returncode == 1 and "not a directory" in r.stderr, r.stderr)
    no_dump(r)
    blocker = os.path.join(tmp, "file")
    open(blocker, "w").close()
    r = ctl(bin_dir, "generate", "-o", os.path.join(blocker, "sub"))
    check(r.returncode == 1 and "cannot create directory" in r.stderr, r.stderr)
    no_dump(r)
    out = os.path.join(tmp, "fixtures")
    r = ctl(bin_dir, "generate", "-o", out)
    check(r.returncode == 0, r.stderr)
    check(sorted(os.listdir(out)) == sorted(os.listdir(os.path.join(ROOT, "checks", "fixtures"))), "every fixture")


def test_readable_replay_shows_cumulative_zoom(bin_dir, tmp):
    path = os.path.join(ROOT, "checks", "fixtures", "touchscreen-pinch-rotate.evemu")
    text = ctl(bin_dir, "replay", path).stdout.splitlines()
    msgs = [json.loads(l) for l in ctl(bin_dir, "replay", "--json", path).stdout.splitlines()]
    gestures = [l for l in text if " pinchRotate " in l or " pan " in l]
    check(gestures and all(" | zoom=" in l and " angle=" in l for l in gestures), gestures[:2])
    import math
    last = [m for m in msgs if m["type"] == "gesture"][-1]["matrix"]
    zoom = round(math.hypot(last[0], last[1]), 3)
    check(("zoom=%s " % zoom) in gestures[-1] or ("zoom=%s" % zoom) in gestures[-1], "%s vs %r" % (zoom, gestures[-1]))


def test_monitor_validates_streams(bin_dir, tmp):
    r = ctl(bin_dir, "monitor", "--socket", os.path.join(tmp, "none.sock"), "--streams", "gesture")
    check(r.returncode != 0 and "unknown stream 'gesture'" in r.stderr, r.stderr)


def test_monitor_count_counts_stream_messages_and_fails_on_error(bin_dir, tmp):
    path = write_pinch(tmp, "p.evemu", 40)
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "20", "--wait-for-subscribers", "1"])
    try:
        r = ctl(bin_dir, "monitor", "--socket", d.socket, "--json", "--count", "3", "--streams", "gestures")
        check(r.returncode == 0, r.stderr)
        types = [json.loads(l)["type"] for l in r.stdout.splitlines()]
        check(types[:2] == ["hello", "subscribed"] and len(types) == 5, "hello, subscribed, then 3: %r" % types)
        check(all(t in ("session", "gesture") for t in types[2:]), repr(types))
        # A negative device id is refused before connecting (a usage error)...
        r = ctl(bin_dir, "monitor", "--socket", d.socket, "--devices=-1")
        check(r.returncode == 64 and "device ids are 0 or more" in r.stderr, "exit %d: %s" % (r.returncode, r.stderr))
        # ...and one past the daemon's 32-bit ids by the daemon: monitor fails with its error.
        r = ctl(bin_dir, "monitor", "--socket", d.socket, "--devices", "3000000000")
        check(r.returncode == 1 and "bad-field" in r.stderr, "exit %d: %s" % (r.returncode, r.stderr))
    finally:
        d.stop()


def test_monitor_ends_when_its_device_is_gone(bin_dir, tmp):
    # Issue 29 item 6: after a replay that does not loop, monitor used to wait forever on an idle daemon.
    # It ends (status 0) once the last device it shows is gone, also when it shows no device messages;
    # the daemon is still running then. --follow keeps it for the next pass of a --loop replay.
    path = write_pinch(tmp, "p.evemu", 20)
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "20", "--wait-for-subscribers", "1"])
    try:
        r = ctl(bin_dir, "monitor", "--socket", d.socket, "--json")
        check(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr))
        types = [json.loads(l)["type"] for l in r.stdout.splitlines()]
        check(types[-1] == "deviceRemoved" and "touches" in types, repr(types))
        check(d.proc.poll() is None, "the daemon is still running: monitor ended by itself")
    finally:
        d.stop()
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "20", "--wait-for-subscribers", "1"])
    try:
        r = ctl(bin_dir, "monitor", "--socket", d.socket, "--json", "--streams", "gestures")
        check(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr))
        types = [json.loads(l)["type"] for l in r.stdout.splitlines()]
        check("deviceRemoved" not in types and "gesture" in types, "device messages not shown: %r" % types)
    finally:
        d.stop()
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "50", "--loop", "--wait-for-subscribers", "1"])
    try:
        one_pass = sum(1 for l in ctl(bin_dir, "replay", "--json", path).stdout.splitlines() if l.strip())
        r = ctl(bin_dir, "monitor", "--socket", d.socket, "--json", "--follow", "--count", str(one_pass + 5))
        check(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr))
        devices = {json.loads(l)["device"]["id"] for l in r.stdout.splitlines() if '"deviceAdded"' in l}
        check(2 in devices, "--follow saw the second pass's device: %r" % devices)
    finally:
        d.stop()



def test_monitor_says_what_a_user_without_observe_does_not_get(bin_dir, tmp):
    # Issue 27: a whole-device subscription without the `observe` right gets its own regions only; the
    # `subscribed` reply says so (`withheld`), and monitor prints it on the subscription's line, where a
    # user who then sees nothing looks. Needs a second uid: run as root, the monitor runs as nobody.
    if os.geteuid() != 0:
        print("  not run: needs root to run the monitor as another user (not counted as passed)")
        return
    os.chmod(tmp, 0o755)
    config = os.path.join(tmp, "access.toml")
    with open(config, "w") as f:
        f.write('[socket]\nmode = "0666"\n[access]\ndefault = ["regions"]\n')
    os.chmod(config, 0o644)
    path = write_pinch(tmp, "p.evemu", 20)
    os.chmod(path, 0o644)
    d = Daemon(bin_dir, tmp, ["--config", config, "--replay", path, "--speed", "20", "--wait-for-subscribers", "1"])
    try:
        r = subprocess.run([os.path.join(bin_dir, "multitouchctl"), "monitor", "--socket", d.socket,
                            "--streams", "touches"], capture_output=True, text=True,
                           timeout=60, user=65534, group=65534, cwd=tmp)
        line = next((l for l in r.stdout.splitlines() if l.startswith("subscribed")), "")
        check("withheld:" in line and 'missing right "observe"' in line,
              "monitor's subscription line says what is withheld: %r (stderr %r)" % (r.stdout, r.stderr))
    finally:
        d.stop()

def test_replay_exits_when_done_and_waits_for_named_regions(bin_dir, tmp):
    # Issue 29 item 6: --exit-when-done ends the daemon (status 0) after the pass, its clients' queues
    # flushed; --wait-for-regions starts the replay once each named region is in force and its client
    # subscribed, whatever the number of connections (a map with two connections is not a pin pad).
    for args, words in ((["--exit-when-done"], "need --replay"),
                        (["--replay", "x.evemu", "--exit-when-done", "--loop"], "never ends"),
                        (["--replay", "x.evemu", "--wait-for-regions", "a,,b"], "--wait-for-regions")):
        r = subprocess.run([os.path.join(bin_dir, "multitouchd"), "--socket", os.path.join(tmp, "x.sock")] + args,
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 64 and words in r.stderr, "%s: exit %d: %s" % (args, r.returncode, r.stderr))
    path = write_pinch(tmp, "p.evemu", 20)
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "20", "--wait-for-regions", "map,pin", "--exit-when-done"])
    sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
    from multitouchd_client import Client, region
    try:
        whole = [-10, -10, 1000, 1000]
        map_regions = Client(d.socket)
        map_regions.declare_regions(1, [region("map", rect=whole, z=1)])
        map_regions.subscribe()
        map_whole = Client(d.socket)
        map_whole.subscribe(streams=["devices"])
        pin = Client(d.socket)
        pin.declare_regions(1, [region("pin", rect=whole, z=2, exclusive=True)])
        check(d.proc.poll() is None, "the replay has not played (and so not ended) yet")
        pin.subscribe()
        got = [m for m in pin.messages() if m["type"] == "touches"]
        check(got and all(t["phase"] == "began" for t in got[0]["touches"]), "the pin pad got the first touch")
        check(got[-1]["touches"] and all(t["phase"] in ("ended", "cancelled") for t in got[-1]["touches"]), "...and the last")
        check(d.proc.wait(timeout=60) == 0, "exit status %s" % d.proc.returncode)
        for c in (map_regions, map_whole, pin):
            c.close()
    finally:
        d.stop()


def test_regions_lists_who_owns_what(bin_dir, tmp):
    # Issue 29 item 1: `multitouchctl regions` (listRegions): each region's owner, z and band, topmost
    # first; this test runs as one user, whose own programs' regions it sees (root: everyone's).
    path = write_pinch(tmp, "p.evemu", 20)
    config = os.path.join(tmp, "regions.toml")
    with open(config, "w") as f:
        f.write('[tuio]\n[[tuio.region]]\nid = "qt"\ntarget = "9"\nrect = [0, 0, 10, 10]\nz = 3\nowner = "qt-app"\n')
    d = Daemon(bin_dir, tmp, ["--config", config, "--replay", path, "--wait-for-regions", "never"])
    sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
    from multitouchd_client import Client, region
    try:
        with Client(d.socket) as c:
            c.declare_regions(1, [region("map", rect=[0, 0, 50, 50], z=1), region("pin", rect=[5, 5, 10, 10], z=5,
                                                                                    exclusive=True)])
            r = ctl(bin_dir, "regions", "--socket", d.socket, "--json")
            check(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr))
            listed = json.loads(r.stdout)
            ids = [x["region"] for x in listed["regions"]]
            mine = {"pin", "map"}
            want = ["pin", "qt", "map"] if os.geteuid() == 0 else ["pin", "map"]
            check(ids == want, "topmost first: %r" % ids)
            for x in listed["regions"]:
                if x["region"] in mine:
                    check(x["uid"] == os.geteuid() and x["pid"] == os.getpid(), repr(x))
                else:
                    check(x["configured"] == "tuio.region[1] for qt-app", repr(x))
            check(listed["regions"][0]["exclusive"] and listed["regions"][0]["bounds"] == [5, 5, 10, 10], r.stdout)
            r = ctl(bin_dir, "regions", "--socket", d.socket)
            check(r.returncode == 0 and "pin: client" in r.stdout and "exclusive" in r.stdout, r.stdout)
            check(c.list_regions(1)["regions"][0]["region"] == "pin", "the Python client's list_regions")
        r = ctl(bin_dir, "regions", "--socket", d.socket, "--device", "7")
        check(r.returncode == 1 and "no device 7" in r.stderr, r.stderr)
    finally:
        d.stop()


def test_tuio_validates_targets_and_regions(bin_dir, tmp):
    for args, words in ((("tuio",), "--to"), (("tuio", "--to", "host:0"), "HOST:PORT"),
                        (("tuio", "--to", "3333", "--region", "map:0,0,0,10"), "ID:X,Y,W,H"),
                        (("tuio", "--to", "3333", "--max-datagram-bytes", "100"), "548")):
        r = ctl(bin_dir, *args)
        check(r.returncode != 0 and words in r.stderr, "%s: exit %d: %s" % (args, r.returncode, r.stderr))
    r = ctl(bin_dir, "tuio", "--to", "3333", "--exclusive")
    check(r.returncode == 64 and "--exclusive needs --region" in r.stderr, r.stderr)
    # --once: no daemon is a failure; without it the forwarder waits for one (checks/tuio/forwarder_check.py).
    r = ctl(bin_dir, "tuio", "--once", "--to", "3333", "--socket", os.path.join(tmp, "none.sock"))
    check(r.returncode == 1 and "multitouchctl tuio:" in r.stderr, r.stderr)
    no_dump(r)


def test_stats_readable_and_json(bin_dir, tmp):
    path = write_pinch(tmp, "p.evemu", 40)
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "50"])
    try:
        import time
        time.sleep(0.5)
        r = ctl(bin_dir, "stats", "--socket", d.socket, "--json")
        check(r.returncode == 0, r.stderr)
        stats = json.loads(r.stdout)
        check(stats["type"] == "stats" and len(stats["clients"]) == 1, r.stdout)
        r = ctl(bin_dir, "stats", "--socket", d.socket)
        check(r.returncode == 0, r.stderr)
        for word in ("uptime:", "clients: 1", "devices:", "latency"):
            check(word in r.stdout, "%r in %s" % (word, r.stdout))
        r = ctl(bin_dir, "stats", "--socket", os.path.join(tmp, "none.sock"))
        check(r.returncode == 1 and "cannot connect" in r.stderr, r.stderr)
    finally:
        d.stop()


def test_bench_runs_from_anywhere(bin_dir, tmp):
    # No argument: the generated recordings, which need no file, so any directory works.
    r = ctl(bin_dir, "bench", "--events", "20000", "--runs", "1", cwd=tmp)
    check(r.returncode == 0 and "fingers-1" in r.stdout and "churn" in r.stdout, r.stdout + r.stderr)
    r = ctl(bin_dir, "bench", "--events", "20000", "--runs", "1", os.path.join(tmp, "missing.evemu"), cwd=tmp)
    check(r.returncode == 1 and "no such file or directory" in r.stderr, r.stderr)


def processes_mentioning(text):
    """Pids whose command line contains `text`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if text.encode() in f.read():
                        found.append(int(entry))
            except OSError:
                pass
    return found


def test_view_replay_daemon_dies_with_a_killed_view(bin_dir, tmp):
    # SIGKILL runs no handler in view: the private daemon must still stop (parent-death signal to
    # its guardian) and leave nothing in /tmp.
    import signal
    import time
    fixture = os.path.join(ROOT, "checks", "fixtures", "touchscreen-map-tour.evemu")
    view = subprocess.Popen([os.path.join(bin_dir, "multitouchctl"), "view", "--listen", "127.0.0.1:0",
                             "--replay", fixture], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        lines = [view.stdout.readline(), view.stdout.readline()]
        check("?token=" in lines[0], lines[0])
        directory = lines[1].split("(", 1)[1].split(")", 1)[0].rsplit("/", 1)[0]
        check(directory.startswith("/tmp/multitouchctl-view-") and os.path.isdir(directory), lines[1])
        daemons = processes_mentioning(directory)
        check(daemons, "no private daemon found for " + directory)
        view.kill()
        view.wait()
        # Explicit end: every process of the directory gone and the directory removed (60 s only
        # bounds a hang).
        for _ in range(6000):
            if not processes_mentioning(directory) and not os.path.exists(directory):
                break
            time.sleep(0.01)
        left = processes_mentioning(directory)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        check(not left, f"processes still running after view was killed: {left}")
        check(not os.path.exists(directory), directory + " left behind")
    finally:
        if view.poll() is None:
            view.kill()
            view.wait()


TESTS = [v for k, v in sorted(globals().items()) if k.startswith("test_")]


def main():
    bin_dir = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    passed = failed = 0
    for test in TESTS:
        tmp = tempfile.mkdtemp(prefix="mtd-cli-")
        try:
            test(bin_dir, tmp)
            passed += 1
            print("ok    %s" % test.__name__, flush=True)
        except Exception:
            failed += 1
            print("FAIL  %s" % test.__name__)
            traceback.print_exc()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
