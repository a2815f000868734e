#!/usr/bin/env python3
"""Tests the header-only C client (clients/c/multitouchd.h).

    python3 clients/c/test_c_client.py [BIN_DIR]

Compiles the header in C99, C11 and C++17 with warnings as errors, then (built with ASan and UBSan):
1. tests/parse_dump.c reads `multitouchctl replay --json` of every fixture and shared recording; each
   line's parsed fields must equal what Python's json module reads from the same line;
2. examples/print_gestures.c runs against a real multitouchd serving a replay; its gesture lines
   (the matrix, and the content point (10, 20) drawn through it) must match the replay's messages.
BIN_DIR holds multitouchd and multitouchctl (default: `swift build --show-bin-path`).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
from test_client import Daemon, replay_json, write_pinch  # noqa: E402

CC = os.environ.get("CC", "cc")
# What an integrator's build uses: optimised, every warning an error. GCC's -Wmaybe-uninitialized
# runs only with optimisation, so the header is compiled at -O2 as well as in the sanitized builds.
STRICT = ["-O2", "-Wall", "-Wextra", "-Werror"]
CXX = os.environ.get("CXX", "c++")
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g"]
TYPES = ["", "hello", "deviceAdded", "deviceRemoved", "touches", "session", "gesture", "tap", "doubleTap", "longPress",
         "dropped", "error", "transform", "subscribed", "unsubscribed", "pong", "stats", "regions", "recognized",
         "regionList"]
PHASES = ["", "began", "moved", "stationary", "changed", "ended", "cancelled"]


def compile_all(tmp):
    example = os.path.join(HERE, "examples", "print_gestures.c")
    for std in ("c99", "c11"):
        subprocess.run([CC, "-std=" + std, *STRICT, "-Wpedantic", "-I", HERE, "-o", os.path.join(tmp, "pg-" + std),
                        example, "-lm"], check=True)
    subprocess.run([CXX, "-x", "c++", "-std=c++17", *STRICT, "-I", HERE, "-o", os.path.join(tmp, "pg-cxx"), example],
                   check=True)
    built = {}
    for name, source in (("print_gestures", example), ("parse_dump", os.path.join(HERE, "tests", "parse_dump.c")),
                         ("connect_hello", os.path.join(HERE, "tests", "connect_hello.c"))):
        built[name] = os.path.join(tmp, name)
        subprocess.run([CC, "-std=c99", *STRICT, *SANITIZE, "-I", HERE, "-o", built[name], source, "-lm"], check=True)
    return built


def cut(text, size):
    """A string as the header stores it in a field of size + 1 bytes: lone surrogates become U+FFFD,
    and it is cut at a character boundary."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")[:size].decode("utf-8", "ignore")


def expected_dump(m):
    """What parse_dump must print for message m (the fields the header parses)."""
    t = m["type"]
    f = lambda v: "%.17g" % v  # noqa: E731
    pair = lambda k: "%s,%s" % (f(m[k][0]), f(m[k][1])) if k in m and isinstance(m[k], list) else "0,0"  # noqa: E731
    device = m.get("device")
    dev_obj = device if isinstance(device, dict) else {}
    dev = dev_obj.get("id", 0) if dev_obj else (device or 0)
    phase = PHASES.index(m["phase"]) if isinstance(m.get("phase"), str) and m["phase"] in PHASES else 0
    mode = {"pan": 1, "pinchRotate": 2, "quickZoom": 3, "momentum": 4, "animatedZoom": 5}.get(m.get("mode"), 0)
    text = dev_obj.get("name") or m.get("message") or m.get("reason") or m.get("daemon") or ""
    out = "%d %s dev=%d time=%.6f session=%d seq=%d phase=%d mode=%d fingers=%d" % (
        TYPES.index(t) if t in TYPES else 0, t, dev, m.get("time", 0), m.get("session", 0), m.get("seq", 0), phase, mode,
        m.get("fingers", 0))
    out += " c=%s t=%s l=%s s=%s r=%s" % (pair("centroid"), pair("translation"), pair("location"), f(m.get("scale", 0)),
                                          f(m.get("rotation", 0)))
    out += " m=%s" % ",".join(f(v) for v in m.get("matrix", [0] * 6))
    if "predictedMatrix" in m:
        out += " pm=%s" % ",".join(f(v) for v in m["predictedMatrix"])
    touches = m.get("touches", []) if t == "touches" else []
    out += " taps=%d n=%d count=%d fatal=%d code=%s units=%s w=%s h=%s text=%s" % (
        m.get("tapCount", 0), len(touches), m.get("count", 0), 1 if m.get("fatal") else 0, m.get("code", ""),
        dev_obj.get("units", ""), f(dev_obj.get("width", 0)), f(dev_obj.get("height", 0)),
        cut(text, 255))
    # devices[] for hello and deviceAdded, region ids for regions, features for hello only.
    devices = m["devices"] if t == "hello" else [device] if t == "deviceAdded" else []
    regions = m["regions"] if t == "regions" else [r["region"] for r in m["regions"]] if t == "regionList" else []
    out += " features=%d region=%s role=%d has_reason=%d devices=%d" % (
        1 if t == "hello" and "regions" in (m.get("features") or []) else 0, cut(m.get("region", ""), 128),
        {"owner": 1, "observer": 2}.get(m.get("role"), 0), 1 if "reason" in m else 0, len(devices))
    for d in devices[:8]:
        out += " device=%d:%s:%s:%s:%s:%s:%s:%s:%d" % (
            d["id"], cut(d["name"], 255), d["class"], d["units"], f(d["width"]), f(d["height"]), f(d["widthMM"]),
            f(d["heightMM"]), d["slots"])
    out += " regions=%d" % len(regions) + "".join(" rid=%s" % cut(r, 128) for r in regions[:16])
    for x in touches[:16]:
        # Protocol 2: mmX/mmY only where they differ from x/y; the header fills them in from x/y.
        out += " touch=%d:%d:%s:%s:%s:%s:%d:mm=%s,%s" % (x["id"], PHASES.index(x["phase"]), f(x["x"]), f(x["y"]),
                                                         f(x["prevX"]), f(x["prevY"]), x["tapCount"],
                                                         f(x.get("mmX", x["x"])), f(x.get("mmY", x["y"])))
        if "predicted" in x:
            out += ":%s,%s" % (f(x["predicted"][0]), f(x["predicted"][1]))
    return out


def test_parse_matches_json(bin_dir, built, tmp):
    # Every fixture and shared recording, replayed (and validated against the schema) by check-replays.sh.
    replays = os.path.join(tmp, "replays.jsonl")
    subprocess.run(["bash", os.path.join(ROOT, "protocol", "check-replays.sh"), "-o", replays,
                    os.path.join(bin_dir, "multitouchctl"), os.path.join(ROOT, "checks", "fixtures"),
                    os.path.join(ROOT, "..", "shared", "recordings")], check=True, capture_output=True)
    with open(replays) as f:
        text = f.read()
    # With predictions (docs/PREDICTION.md): predicted and predictedMatrix.
    predicted = subprocess.run([os.path.join(bin_dir, "multitouchctl"), "replay", "--json", "--predict-ms", "16",
                                os.path.join(ROOT, "checks", "fixtures", "touchscreen-pinch-rotate.evemu")],
                               check=True, capture_output=True, text=True).stdout
    assert '"predictedMatrix"' in predicted and '"predicted"' in predicted, "replay --predict-ms adds predictions"
    text += predicted
    extra = ['{"type":"error","code":"bad-field","message":"quote \\" backslash \\\\ tab \\t \\u00e9 \\ud83d\\ude00 \\ud800 raw é","fatal":false,"id":3}',
             '{"type":"error","code":"bad-field","message":"%s","fatal":false}' % ("é" * 200),
             # A device mapped to pixels: mmX/mmY present and different from x/y.
             '{"type":"touches","device":1,"time":1.5,"fingers":1,"touches":[{"id":3,"phase":"moved","x":300,"y":400.75,"prevX":298,"prevY":401,"nx":0.15625,"ny":0.371,"mmX":45.8,"mmY":61.2,"slot":1,"tapCount":2,"type":"direct"}]}',
             '{"type":"futureMessage","nested":{"a":[1,{"b":null}],"c":true},"device":4}',
             '{"type":"stats","id":"s","uptime":1.5,"clients":[],"devices":[],"latency":{"unit":"us","count":0,"max":0,"buckets":[],"deferred":0}}']
    # The protocol's golden messages (region, role, reason, the regions and recognized replies, a hello
    # with features), a hello with more devices and a regions reply with more ids than the header keeps.
    golden = os.path.join(ROOT, "checks", "protocol", "golden", "messages")
    for name in sorted(os.listdir(golden)):
        with open(os.path.join(golden, name)) as f:
            extra += [line for line in f.read().splitlines() if line]
    many = [{"id": i, "name": "d%d" % i, "source": "s", "class": "touchpad", "protocol": "B", "slots": i,
             "semiMT": False, "units": "millimeters", "width": 10.5 * i, "height": 7, "widthMM": 10.5 * i,
             "heightMM": 7, "sizeSource": "resolution"} for i in range(1, 11)]
    extra.append(json.dumps({"type": "hello", "protocol": 2, "daemon": "multitouchd x", "devices": many,
                             "features": ["regions", "later"]}, separators=(",", ":")))
    extra.append(json.dumps({"type": "regions", "id": 1, "device": 1,
                             "regions": ["r%d" % i for i in range(20)] + ["é" * 64 + "x"]}, separators=(",", ":")))
    text += "\n".join(extra) + "\n"
    out = subprocess.run([built["parse_dump"]], input=text, capture_output=True, text=True, check=True).stdout.splitlines()
    inputs = text.splitlines()
    assert len(out) == len(inputs), "%d lines in, %d out" % (len(inputs), len(out))
    for line, got in zip(inputs, out):
        want = expected_dump(json.loads(line))
        assert got == want, "C parse differs for %s\n  C:      %s\n  Python: %s" % (line[:200], got, want)
    return "%d lines" % len(inputs)


def test_example_against_the_daemon(bin_dir, built, tmp):
    path = write_pinch(tmp, "pinch-c.evemu", 120)
    messages = [json.loads(l) for l in replay_json(bin_dir, path)]
    d = Daemon(bin_dir, tmp, ["--replay", path, "--speed", "20", "--wait-for-subscribers", "1"])
    try:
        run = subprocess.run([built["print_gestures"], d.socket], capture_output=True, text=True, timeout=60)
    finally:
        d.stop()
    assert run.returncode == 0, "exit %d: %s" % (run.returncode, run.stderr)
    lines = run.stdout.splitlines()
    assert lines[0].startswith("connected to multitouchd "), lines[:1]
    added = [m["device"] for m in messages if m["type"] == "deviceAdded"][0]
    assert lines[1] == "device %d: %s (%.1f x %.1f %s)" % (added["id"], added["name"], added["width"], added["height"],
                                                          added["units"]), "the hello's device: %r" % lines[1:2]
    gestures = [l.split() for l in lines if l.startswith("gesture ")]
    want = [m for m in messages if m["type"] == "gesture"]
    assert len(gestures) == len(want) and want, "%d gesture lines, %d gestures" % (len(gestures), len(want))
    for words, m in zip(gestures, want):
        assert int(words[1]) == m["seq"] and words[2] == m["mode"] and words[3] == m["phase"], (words, m)
        a, b, c, dd, tx, ty = m["matrix"]
        x, y = (float(v) for v in words[-1].split("->")[1].strip("()").split(","))
        assert abs(x - (a * 10 + c * 20 + tx)) < 1e-3 and abs(y - (b * 10 + dd * 20 + ty)) < 1e-3, (words, m["matrix"])
    touches = [l for l in lines if l.startswith("touches ")]
    assert len(touches) == sum(1 for m in messages if m["type"] == "touches"), "every touches message"
    assert lines[-1].startswith("device 1 removed (end of recording)"), lines[-1]
    return "%d gestures" % len(want)


def test_connect_keeps_the_hello(bin_dir, built, tmp):
    # After mtd_connect the hello's line stays readable (also after later reads) and its devices are
    # parsed: a region program sizes its regions from them.
    path = write_pinch(tmp, "pinch-hello.evemu", 10)
    d = Daemon(bin_dir, tmp, ["--replay", path, "--wait-for-subscribers", "1"])
    try:
        run = subprocess.run([built["connect_hello"], d.socket], capture_output=True, text=True, timeout=60)
    finally:
        d.stop()
    assert run.returncode == 0, "exit %d: %s" % (run.returncode, run.stderr)
    lines = run.stdout.splitlines()
    assert lines[0] == lines[1], "the hello line changed after a read: %r" % lines[:2]
    hello = json.loads(lines[0])
    assert hello["type"] == "hello" and hello["devices"], lines[0]
    assert lines[2] == "protocol=%d features=%d devices=%d" % (hello["protocol"], 1 if "regions" in hello.get(
        "features", []) else 0, len(hello["devices"])), lines[2]
    want = ["device=%d:%s:%s:%s:%.17g:%.17g:%.17g:%.17g:%d" % (dev["id"], dev["name"], dev["class"], dev["units"],
                                                              dev["width"], dev["height"], dev["widthMM"],
                                                              dev["heightMM"], dev["slots"]) for dev in hello["devices"]]
    assert lines[3:] == want, "devices %r, the hello has %r" % (lines[3:], want)
    assert hello["devices"][0]["width"] > 0, "the replayed device has a size"
    return "%d device(s), %s x %s %s" % (len(want), hello["devices"][0]["width"], hello["devices"][0]["height"],
                                         hello["devices"][0]["units"])


def main():
    bin_dir = sys.argv[1] if len(sys.argv) > 1 else subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    tmp = tempfile.mkdtemp(prefix="mtd-c-")
    failed = 0
    try:
        built = compile_all(tmp)
        print("ok    compile (C99, C11, C++17, -O2 -Wall -Wextra -Werror; ASan/UBSan builds)")
        for test in (test_parse_matches_json, test_example_against_the_daemon, test_connect_keeps_the_hello):
            try:
                print("ok    %s (%s)" % (test.__name__, test(bin_dir, built, tmp)))
            except Exception as error:
                failed += 1
                print("FAIL  %s: %s" % (test.__name__, error))
    except subprocess.CalledProcessError as error:
        failed += 1
        print("FAIL  compile: %s" % error)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("c client: %s" % ("ok" if not failed else "%d failed" % failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
