#!/usr/bin/env python3
"""Judges the guest checks' outputs (JSON lines from `multitouchctl listen/replay --json`).

  checks.py compare REPLAY LIVE [LABEL [KNOWN]]
                                    live output equals the replay up to timing; with KNOWN (the
                                    reason) a difference is reported as KNOWN instead of FAIL;
                                    exit 3: only gesture messages differ (same touches);
                                    exit 4 (PARTIAL): the reader overflowed, and the touch frames
                                    before the overflow equal the replay's
  checks.py exact LIVE DELIVERED LABEL
                                    live output equals the replay of the events it read, exactly
                                    (numbers to 1e-9 relative: guest and host libm differ)
  checks.py syn-dropped LIVE        overflow reported, lost touch cancelled, device works afterwards
  checks.py removal LIVE            touch cancelled, then deviceRemoved
  checks.py daemon MONITOR          multitouchd served a hotplugged device, removal cancelled its touch
  checks.py grab GRABBER OTHER      the grabber saw touches, the other reader none
  checks.py same-touches A B        two replays have the same touches (record round trip)

Prints one line "PASS ..." or "FAIL ..." and exits 0/1.
"""
import json
import math
import sys

# Fields that depend on when events arrive, not on what they say: times (kernel vs recording clock),
# velocities (computed over real event time deltas), the source (device node vs file name) and the
# reason a device went away (unplug vs end of recording).
TIMING_KEYS = {"time", "velocity", "source"}


def load(path):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except ValueError as e:
                raise SystemExit("FAIL %s:%d: not JSON (%s): %s" % (path, n, e, line[:120]))
    return out


def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in TIMING_KEYS and "elocity" not in k}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def normalize(messages):
    out = []
    for m in messages:
        m = strip(m)
        if m.get("type") == "deviceRemoved":
            m.pop("reason", None)
        out.append(m)
    return out


def touch_phases(messages):
    """id -> list of phases (only changes: began/moved/ended/cancelled)."""
    phases = {}
    for m in messages:
        if m.get("type") != "touches":
            continue
        for t in m.get("touches", []):
            phases.setdefault(t["id"], []).append(t["phase"])
    return phases


def balanced(messages):
    """Every touch: exactly one began first, exactly one ended/cancelled last. Returns problems."""
    problems = []
    for tid, ph in touch_phases(messages).items():
        ends = [p for p in ph if p in ("ended", "cancelled")]
        if ph[0] != "began" or ph.count("began") != 1:
            problems.append("touch %s does not begin once: %s" % (tid, ph[:3]))
        if len(ends) != 1 or ph[-1] not in ("ended", "cancelled"):
            problems.append("touch %s does not end once (stuck?): ...%s" % (tid, ph[-3:]))
    return problems


def summary(messages):
    kinds = {}
    for m in messages:
        kinds[m.get("type")] = kinds.get(m.get("type"), 0) + 1
    return " ".join("%s=%d" % kv for kv in sorted(kinds.items()))


# Messages a gesture timer can fire between frames (long-press began, a single tap confirmed when the
# double-tap interval lapses). Live, evemu-play's sleeps drift by milliseconds under TCG, so such a
# message may land one or more frames earlier or later than in the replay; it is compared on its own
# (type, phase, session, fingers), in order, without its place among the frames or its location.
TIMER_TYPES = {"longPress", "tap"}


def split_timers(messages):
    rest, timers = [], []
    for m in messages:
        if m.get("type") in TIMER_TYPES:
            timers.append({k: m.get(k) for k in ("type", "phase", "session", "fingers", "tapCount")})
        else:
            rest.append(m)
    return rest, timers


def compare(replay_path, live_path, label, known=None):
    replay = normalize(load(replay_path))
    live = normalize(load(live_path))
    if same(replay, live):
        print("PASS %s: live equals replay (%d messages: %s)" % (label, len(live), summary(live)))
        return 0
    replay_rest, replay_timers = split_timers(replay)
    live_rest, live_timers = split_timers(live)
    if same(replay_rest, live_rest) and same(replay_timers, live_timers):
        print("PASS %s: live equals replay; %d timer message(s) fired at a different frame (%d messages: %s)" % (
            label, len(live_timers), len(live), summary(live)))
        return 0
    replay, live = replay_rest, live_rest
    overflow = next((i for i, m in enumerate(live) if m.get("type") == "dropped" and m.get("unit") == "overflows"), None)
    if overflow is not None and not known:
        # The reader overflowed (a loaded host starved it): after the resync the input it read is not the
        # recording's by construction, so only the touch frames before the overflow can be compared.
        before = [m for m in live[:overflow] if m.get("type") == "touches"]
        replay_touches = [m for m in replay if m.get("type") == "touches"][:len(before)]
        if before and same(before, replay_touches):
            print("PARTIAL %s: the reader overflowed (SYN_DROPPED under load); the %d touch frames before the "
                  "overflow equal the replay's, the rest cannot be compared (%s)" % (label, len(before), summary(live)))
            return 4
        n = next((i for i, (a, b) in enumerate(zip(replay_touches, before)) if not close(a, b)), len(replay_touches))
        print("FAIL %s: the reader overflowed, and before the overflow the touch frames differ at frame %d of %d "
              "(replay: %s | live: %s)" % (label, n + 1, len(before), summary(replay), summary(live)))
        return 1
    # Same device and the same touches (ids, phases, positions) in the same order: the input was read
    # alike, and only gesture decisions that depend on event times differ.
    def touch_frames(ms):
        return [m for m in ms if m.get("type") in ("deviceAdded", "touches")]
    only_gestures = same(touch_frames(replay), touch_frames(live))
    if known:
        print("KNOWN %s: live differs from replay, as expected: %s (replay: %s | live: %s)" % (
            label, known, summary(replay), summary(live)))
        return 0
    n = next((i for i, (a, b) in enumerate(zip(replay, live)) if not close(a, b)), min(len(replay), len(live)))
    what = "same touches, gesture messages differ" if only_gestures else "touches differ"
    print("FAIL %s: live differs from replay at message %d of %d/%d, %s (replay: %s | live: %s)" % (
        label, n + 1, len(replay), len(live), what, summary(replay), summary(live)))
    a = json.dumps(replay[n])[:300] if n < len(replay) else "<end>"
    b = json.dumps(live[n])[:300] if n < len(live) else "<end>"
    print("    replay: %s\n    live:   %s" % (a, b))
    return 3 if only_gestures else 1


def same(xs, ys):
    return len(xs) == len(ys) and all(close(a, b) for a, b in zip(xs, ys))


def close(a, b):
    """Equal, numbers to 1e-9 relative: the guest's emulated CPU has no FMA/AVX2, so glibc picks other
    libm variants (atan2, sin, cos) there, and results may differ from the host's in the last bits."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
            return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
        return False
    return a == b


def exact(live_path, delivered_path, label):
    """The live output against the replay of the very events the listener read (times included):
    only the source and the reason the device went away may differ."""
    def norm(messages):
        out = []
        for m in messages:
            m = dict(m)
            if m.get("type") == "deviceAdded":
                m["device"] = {k: v for k, v in m["device"].items() if k != "source"}
            if m.get("type") == "deviceRemoved":
                m.pop("reason", None)
            out.append(m)
        return out
    live = norm(load(live_path))
    replay = norm(load(delivered_path))
    if len(live) == len(replay) and all(close(a, b) for a, b in zip(replay, live)):
        print("EXACT %s: %d messages, times and velocities included" % (label, len(live)))
        return 0
    n = next((i for i, (a, b) in enumerate(zip(replay, live)) if not close(a, b)), min(len(replay), len(live)))
    print("INEXACT %s: live differs from the replay of the delivered events at message %d of %d/%d" % (
        label, n + 1, len(replay), len(live)))
    if n < len(replay) and n < len(live):
        print("    replay: %s\n    live:   %s" % (json.dumps(replay[n])[:300], json.dumps(live[n])[:300]))
    return 1


def syn_dropped(path):
    msgs = load(path)
    problems = balanced(msgs)
    drops = [m for m in msgs if m.get("type") == "dropped"]
    if not drops:
        problems.append("no dropped message")
    phases = touch_phases(msgs)
    if not any(ph[-1] == "cancelled" for ph in phases.values()):
        problems.append("no touch cancelled by the resync")
    drop_index = next((i for i, m in enumerate(msgs) if m.get("type") == "dropped"), len(msgs))
    later = touch_phases(msgs[drop_index + 1:])
    fresh = [tid for tid, ph in later.items() if ph[0] == "began" and ph[-1] == "ended"]
    if not fresh:
        problems.append("no complete touch after the overflow (device did not recover)")
    last_touches = [m for m in msgs if m.get("type") == "touches"]
    if last_touches and any(t["phase"] not in ("ended", "cancelled") for t in last_touches[-1]["touches"]):
        problems.append("touches still active at the end")
    if problems:
        print("FAIL syn-dropped: " + "; ".join(problems) + " (" + summary(msgs) + ")")
        return 1
    print("PASS syn-dropped: %d overflow(s) reported, lost touch cancelled, %d touch(es) after recovery (%s)" % (
        len(drops), len(fresh), summary(msgs)))
    return 0


def removal(path):
    msgs = load(path)
    problems = balanced(msgs)
    phases = touch_phases(msgs)
    if not phases:
        problems.append("no touch seen before the removal")
    elif not all(ph[-1] == "cancelled" for ph in phases.values()):
        problems.append("touch not cancelled: %s" % {k: v[-1] for k, v in phases.items()})
    if not msgs or msgs[-1].get("type") != "deviceRemoved" or msgs[-1].get("reason") != "device removed":
        problems.append("last message is not deviceRemoved(device removed): %s" % (json.dumps(msgs[-1])[:200] if msgs else "<none>"))
    if problems:
        print("FAIL removal: " + "; ".join(problems))
        return 1
    print("PASS removal: touch cancelled, then deviceRemoved (%s)" % summary(msgs))
    return 0


def daemon(path):
    """multitouchd picked up a device created after it started, served its touch, and reported the
    removal mid-touch with cancelled + deviceRemoved."""
    msgs = [m for m in load(path) if "type" in m]
    types = [m["type"] for m in msgs]
    problems = balanced(msgs)
    added = [i for i, m in enumerate(msgs) if m["type"] == "deviceAdded"
             and m.get("device", {}).get("name") == "multitouchd guest touchscreen"]
    removed = [i for i, m in enumerate(msgs) if m["type"] == "deviceRemoved"]
    phases = touch_phases(msgs)
    if not types or types[0] != "hello":
        problems.append("no hello first")
    if not added:
        problems.append("no deviceAdded for the hotplugged device")
    if not phases:
        problems.append("no touches")
    elif not all(ph[-1] == "cancelled" for ph in phases.values()):
        problems.append("touch not cancelled by the removal: %s" % {k: v[-1] for k, v in phases.items()})
    if not removed or (added and removed[-1] < added[0]):
        problems.append("no deviceRemoved after the deviceAdded")
    if problems:
        print("FAIL daemon hotplug: " + "; ".join(problems) + " (" + summary(msgs) + ")")
        return 1
    print("PASS daemon hotplug: multitouchd served a device created after start; removal mid-touch gave cancelled + deviceRemoved (%s)" % summary(msgs))
    return 0


def grab(grabber_path, other_path):
    g = load(grabber_path)
    o = load(other_path)
    gt = touch_phases(g)
    ot = touch_phases(o)
    if gt and not ot and not balanced(g):
        print("PASS grab: grabbing reader saw %d touch(es), second reader none" % len(gt))
        return 0
    print("FAIL grab: grabbing reader touches=%d, second reader touches=%d %s" % (len(gt), len(ot), balanced(g)))
    return 1


def same_touches(a_path, b_path):
    """The touches (ids, phases, positions, in order) only: the recorded file carries the live event
    times, so gesture decisions that depend on time may differ from the original's."""
    a = [m for m in normalize(load(a_path)) if m.get("type") == "touches"]
    b = [m for m in normalize(load(b_path)) if m.get("type") == "touches"]
    if a and same(a, b):
        print("PASS record: recorded file replays to the same %d touch frames" % len(a))
        return 0
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if not close(x, y)), min(len(a), len(b)))
    print("FAIL record: replays differ at message %d of %d/%d" % (n + 1, len(a), len(b)))
    if n < len(a) and n < len(b):
        print("    original: %s\n    recorded: %s" % (json.dumps(a[n])[:300], json.dumps(b[n])[:300]))
    return 1


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "compare" and len(argv) in (4, 5, 6):
        return compare(argv[2], argv[3], argv[4] if len(argv) >= 5 else argv[3], argv[5] if len(argv) == 6 else None)
    if cmd == "exact" and len(argv) == 5:
        return exact(argv[2], argv[3], argv[4])
    if cmd == "syn-dropped" and len(argv) == 3:
        return syn_dropped(argv[2])
    if cmd == "removal" and len(argv) == 3:
        return removal(argv[2])
    if cmd == "daemon" and len(argv) == 3:
        return daemon(argv[2])
    if cmd == "grab" and len(argv) == 4:
        return grab(argv[2], argv[3])
    if cmd == "same-touches" and len(argv) == 4:
        return same_touches(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
