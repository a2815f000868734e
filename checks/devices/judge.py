#!/usr/bin/env python3
"""Device matrix, step 3 (on the host): judges what play.py recorded in the guest.

For every device and scenario it compares three things: what the scenario says (the plan), what the
kernel made of the reports (the raw evdev events of the device's nodes) and what a socket client of the
daemon received. A scenario passes when the daemon shows every contact the kernel reported as one touch
with the right phases (none lost, none left down), publishes every kernel frame that moved a contact,
puts each touch within one device unit (in mm, by the resolution the kernel derived; normalized where
the device gives none) of the kernel's position, and shows the scripted gesture (pan distance, pinch
scale and rotation within 1 %, the hand-off without a jump, taps, long press); and when the kernel's
contacts are the scenario's. Where the kernel deviates from the scenario and the daemon follows the
kernel, the result is KERNEL with the kernel's doing named, not a pass.

usage: judge.py WORK_DIR [--table FILE] NAME...
Prints one line per device and scenario, the totals per scenario, and "N passed, N failed".
"""
import json
import math
import os
import re
import sys

ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TOOL_TYPE, ABS_MT_TRACKING_ID = 0x2F, 0x35, 0x36, 0x37, 0x39
BTN_LEFT, BTN_TOOL_PEN, BTN_STYLUS = 0x110, 0x140, 0x14B
MT_TOOL_PALM = 2
PROP_POINTER, PROP_DIRECT, PROP_BUTTONPAD = 0, 1, 2
PAN_SLOP_MM = 2.0  # config/multitouchd.toml pan_slop_mm: a pan's content lags the finger by at most this
SCENARIOS = ["tap", "double tap", "long hold", "pan", "pinch-rotate", "hand-off 2-1-2", "vanish", "palm",
             "max fingers", "click 1", "click 2", "two-finger scroll", "burst after stall"]


class Contact:
    """One kernel contact: a tracking id's life in one slot."""

    def __init__(self, slot, tracking, frame, time):
        self.slot = slot
        self.tracking = tracking
        self.begin = frame
        self.begin_time = time
        self.positions = []  # (frame, time, x, y) at every frame its position was reported or changed
        self.end = None
        self.end_time = None
        self.palm = False


def kernel_contacts(events):
    """The contacts of one node's events, and the frames (time of each SYN_REPORT)."""
    slot = 0
    slots = {}
    contacts = []
    frames = []
    pending = {}
    button_changes = []
    frame = 0
    for time, type_, code, value in events:
        if type_ == 3:
            if code == ABS_MT_SLOT:
                slot = value
            elif code == ABS_MT_TRACKING_ID:
                if slot in slots and slots[slot].end is None:
                    slots[slot].end = frame
                    slots[slot].end_time = time
                if value >= 0:
                    c = Contact(slot, value, frame, time)
                    # The kernel leaves out a value equal to the slot's last one: a new contact
                    # starts from what the slot held.
                    previous = slots.get(slot)
                    c.x, c.y = (previous.x, previous.y) if previous is not None else (None, None)
                    slots[slot] = c
                    contacts.append(c)
                    pending.setdefault(slot, set())
            elif code in (ABS_MT_POSITION_X, ABS_MT_POSITION_Y) and slot in slots:
                c = slots[slot]
                if code == ABS_MT_POSITION_X:
                    c.x = value
                else:
                    c.y = value
                pending.setdefault(slot, set()).add(code)
            elif code == ABS_MT_TOOL_TYPE and slot in slots and value == MT_TOOL_PALM:
                slots[slot].palm = True
        elif type_ == 1 and code == BTN_LEFT:
            button_changes.append((time, value))
        elif type_ == 0 and code == 0:
            for s in list(pending):
                c = slots.get(s)
                if c is not None and c.end is None and c.x is not None and c.y is not None:
                    c.positions.append((frame, time, c.x, c.y))
            pending = {}
            frames.append(time)
            frame += 1
    for c in contacts:
        # A slot that keeps its id to the end of the recording ended with the device's removal.
        if c.x is None:
            c.x = c.y = 0
    return contacts, frames, button_changes


def close(a, b, tolerance):
    return abs(a - b) <= tolerance


class DeviceJudge:
    def __init__(self, plan, out, daemon_log):
        self.plan = plan
        self.out = out
        self.log = daemon_log
        self.rows = {}
        self.notes = []
        self.messages = []
        for line in out.get("socket", []):
            try:
                self.messages.append(json.loads(line))
            except ValueError:
                self.notes.append(f"unparsable line from the daemon: {line[:80]}")

    def node_roles(self):
        info = self.out.get("evdev", {})
        touch = [n for n, i in info.items() if str(ABS_MT_POSITION_X) in i["axes"]]
        pens = [n for n, i in info.items() if (BTN_TOOL_PEN in i["keys"] or BTN_STYLUS in i["keys"])
                and str(ABS_MT_POSITION_X) not in i["axes"]]
        # The finger node: the one with the most multitouch events (a dial node has MT axes too).
        kernel = self.out.get("kernel", {})
        touch.sort(key=lambda n: -len(kernel.get(n, [])))
        return touch, pens

    def judge(self):
        name = self.plan["name"]
        errors = list(self.out.get("errors", []))
        if "evdev" not in self.out or "windows" not in self.out:
            return {s["name"]: ("FAIL", "; ".join(errors) or "no record") for s in self.plan["scenarios"]}, {}
        touch_nodes, pen_nodes = self.node_roles()
        if not touch_nodes:
            return {s["name"]: ("FAIL", "the kernel made no multitouch node") for s in self.plan["scenarios"]}, {}
        node = touch_nodes[0]
        info = self.out["evdev"][node]
        props = info["props"]
        kernel_class = "touchscreen" if PROP_DIRECT in props else "touchpad" if PROP_POINTER in props else "?"
        xr = info["axes"][str(ABS_MT_POSITION_X)]
        yr = info["axes"][str(ABS_MT_POSITION_Y)]
        slots = info["axes"].get(str(ABS_MT_SLOT), [0, 0])[1] + 1
        added = [m for m in self.messages if m.get("type") == "deviceAdded"]
        dev = next((m["device"] for m in added if m["device"].get("source") == node), None)
        summary = {"node": node, "kernelClass": kernel_class + (" (buttonpad)" if PROP_BUTTONPAD in props else ""),
                   "slots": slots, "resolution": [xr[3], yr[3]], "pens": len(pen_nodes), "kernelName": info["name"]}
        device_errors = []
        if dev is None:
            device_errors.append(f"the daemon never announced {node}")
        else:
            summary["daemonClass"] = dev["class"]
            summary["sizeSource"] = dev["sizeSource"]
            if dev["class"] != kernel_class:
                device_errors.append(f"class {dev['class']}, the kernel presents a {kernel_class}")
            if (xr[3] > 0 and yr[3] > 0) != (dev["sizeSource"] == "resolution"):
                device_errors.append(f"size source {dev['sizeSource']} with kernel resolution {xr[3]}x{yr[3]}")
            if dev["sizeSource"] != "resolution" and not any(
                    f"device.name={info['name']} " in line and "(nominal size)" in line for line in self.log.splitlines()):
                device_errors.append("no logged fallback for the missing resolution")
        for pen in pen_nodes:
            if any(m["device"].get("source") == pen for m in added):
                device_errors.append(f"the pen node {pen} was served")
        listed = {json.loads(line)["path"]: json.loads(line) for line in self.out.get("devices", [])}
        for n in self.out.get("nodes", []):
            entry = listed.get(n)
            if entry is None or not entry.get("classReason") or not entry.get("reason"):
                device_errors.append(f"multitouchctl devices does not explain {n}")
            elif n in pen_nodes and "pen" not in entry["classReason"]:
                device_errors.append(f"multitouchctl devices does not say {n} is a pen ({entry['classReason']})")
        summary["deviceErrors"] = device_errors + errors
        did = dev["id"] if dev else None
        contacts, frames, buttons = kernel_contacts(self.out["kernel"].get(node, []))
        results = {}
        for window in self.out["windows"]:
            scenario = next(s for s in self.plan["scenarios"] if s["name"] == window["name"])
            start, end = window["start"], window["end"] + 420_000
            in_window = [c for c in contacts if start <= c.begin_time <= end]
            msgs = [m for m in self.messages if m.get("device") == did and "time" in m
                    and start <= round(m["time"] * 1e6) <= end]
            # Overflows under load: a reader that fell behind lost events (the kernel says SYN_DROPPED).
            # The matrix's own reader losing them leaves nothing to judge against; the daemon's is
            # resynced and cancels the touches it lost (as documented), which no longer are the
            # kernel's contacts. Either is the host's load, counted apart (LOAD), never a pass.
            lost = [t for t, type_, code, _ in self.out["kernel"].get(node, [])
                    if type_ == 0 and code == 3 and start <= t <= end]
            dropped = [m for m in msgs if m["type"] == "dropped"]
            if lost or dropped:
                who = "the matrix's evdev reader" if lost else "multitouchd's reader"
                results[window["name"]] = ("LOAD", f"{who} overflowed (SYN_DROPPED) on a loaded host")
                continue
            times = [t for t in frames if start <= t <= end]
            # The longest pause between reports: over two frames too, since the frame hid-multitouch's
            # release timer makes splits the pause it ends.
            stall = max((b - a for a, b in zip(times, times[2:])), default=0) / 1000
            status, detail = self.judge_scenario(scenario, in_window, msgs, xr, yr, buttons, start, end, stall)
            if device_errors + errors and status == "PASS":
                status, detail = "FAIL", "; ".join(device_errors + errors)
            results[window["name"]] = (status, detail)
        return results, summary

    def judge_scenario(self, scenario, contacts, msgs, xr, yr, buttons, start, end, stall_ms):
        expect = scenario["expect"]
        problems = []
        kernel_notes = []
        touches = {}
        order = []
        max_down = 0
        max_fingers = 0
        for m in msgs:
            if m["type"] != "touches":
                continue
            down = 0
            max_fingers = max(max_fingers, m.get("fingers", 0))
            for t in m["touches"]:
                if t["phase"] not in ("ended", "cancelled"):
                    down += 1
                # The scenario's touches: those that began in it (a contact the kernel kept down from
                # an earlier scenario is that scenario's).
                if t["id"] not in touches:
                    if t["phase"] != "began":
                        continue
                    touches[t["id"]] = []
                    order.append(t["id"])
                touches[t["id"]].append((m["time"], t))
            max_down = max(max_down, down)
        contacts = sorted(contacts, key=lambda c: (c.begin_time, c.slot))
        kept = [c for c in contacts if c.end_time is None or c.end_time > end]
        if kept:
            kernel_notes.append(f"the kernel kept {len(kept)} contact(s) down past the scenario's end")
        # one touch per contact, phases well formed, nothing left down the kernel lifted
        if len(order) != len(contacts):
            problems.append(f"{len(order)} touches for {len(contacts)} kernel contacts")
        for c, tid in zip(contacts, order):
            phases = [t["phase"] for _, t in touches[tid]]
            if phases.count("began") != 1:
                problems.append(f"touch {tid} phases {phases[:3]}...")
            ends = [p for p in phases if p in ("ended", "cancelled")]
            if c in kept:
                if ends:
                    problems.append(f"touch {tid} {ends[0]} while the kernel kept its contact down")
            elif len(ends) != 1 or phases[-1] not in ("ended", "cancelled"):
                problems.append(f"touch {tid} ends {ends or 'never'} (stuck)")
        res = (xr[3], yr[3])
        for c, tid in zip(contacts, order):
            if c in kept:
                continue
            samples = touches[tid]
            last_phase = samples[-1][1]["phase"]
            if c.palm and last_phase != "cancelled":
                problems.append(f"touch {tid}: the kernel marked it a palm, the daemon {last_phase} it")
            if not c.palm and c.end is not None and last_phase != "ended":
                problems.append(f"touch {tid}: the kernel lifted it, the daemon {last_phase} it")
            moved = sum(1 for _, t in samples if t["phase"] == "moved")
            kernel_moves = max(0, len(c.positions) - 1)
            if moved != kernel_moves:
                problems.append(f"touch {tid}: {moved} moves published for {kernel_moves} kernel frames")
            if c.positions:
                _, _, kx, ky = c.positions[-1]
                t = samples[-1][1]
                if res[0] > 0 and res[1] > 0:
                    ex, ey = (kx - xr[0]) / res[0], (ky - yr[0]) / res[1]
                    mx, my = t.get("mmX", t["x"]), t.get("mmY", t["y"])
                    if not (close(mx, ex, 1 / res[0] + 1e-3) and close(my, ey, 1 / res[1] + 1e-3)):
                        problems.append(f"touch {tid} at ({mx:.3f}, {my:.3f}) mm, the kernel's ({ex:.3f}, {ey:.3f})")
                else:
                    ex, ey = (kx - xr[0]) / (xr[1] - xr[0]), (ky - yr[0]) / (yr[1] - yr[0])
                    if not (close(t["nx"], ex, 1 / (xr[1] - xr[0]) + 1e-4) and close(t["ny"], ey, 1 / (yr[1] - yr[0]) + 1e-4)):
                        problems.append(f"touch {tid} at n({t['nx']}, {t['ny']}), the kernel's ({ex:.4f}, {ey:.4f})")
        # the kernel against the scenario
        if len(contacts) != expect["touches"]:
            why = ""
            if len(contacts) > expect["touches"] and stall_ms > 100:
                why = (f" (hid-multitouch's sticky-fingers timer lifts every contact after 100 ms without a"
                       f" report: the emulated machine stalled {stall_ms:.0f} ms)")
            kernel_notes.append(f"the kernel reported {len(contacts)} contacts for {expect['touches']} fingers{why}")
        gestures = [m for m in msgs if m["type"] == "gesture"]

        def mm(x, y):
            if res[0] > 0 and res[1] > 0:
                return ((x - xr[0]) / res[0], (y - yr[0]) / res[1])
            return None

        same = len(contacts) == expect["touches"]
        if same and expect.get("taps") and not any(m["type"] == "tap" and m.get("tapCount") == 1 for m in msgs):
            problems.append("no tap")
        if same and expect.get("doubleTaps") and not any(m["type"] == "doubleTap" for m in msgs):
            problems.append("no doubleTap")
        if same and expect.get("longPress") and not any(m["type"] == "longPress" and m.get("phase") == "began" for m in msgs):
            problems.append("no longPress")
        if expect.get("maxFingers"):
            n = expect["maxFingers"]
            if max_down != n:
                problems.append(f"{max_down} touches down at most, {n} fingers")
            kernel_max = self.max_simultaneous(contacts)
            if kernel_max != n:
                kernel_notes.append(f"the kernel held {kernel_max} contacts at most for {n} fingers")
        # The gestures are judged against the fingers when the kernel's contacts are the fingers: a
        # contact the kernel split in two (hid-multitouch's sticky-fingers timer releases every contact
        # after 100 ms without a report, as a stalled machine makes happen) makes other gestures.
        if (expect.get("pan") or expect.get("scroll")) and contacts and same:
            segs = [g for g in gestures if g["mode"] in ("pan", "pinchRotate")]
            if not segs:
                problems.append("no pan gesture")
            else:
                last = segs[-1]
                if res[0] > 0:
                    ends = [mm(*c.positions[-1][2:]) for c in contacts if c.positions]
                    starts = [mm(*c.positions[0][2:]) for c in contacts if c.positions]
                    dx = sum(e[0] - s[0] for e, s in zip(ends, starts)) / len(ends)
                    dy = sum(e[1] - s[1] for e, s in zip(ends, starts)) / len(ends)
                    tx, ty = last["translation"]
                    travel, shown = math.hypot(dx, dy), math.hypot(tx, ty)
                    lag = travel - shown
                    if not (-0.01 * travel - 0.05 <= lag <= PAN_SLOP_MM + 0.01 * travel + 0.05):
                        problems.append(f"pan shows {shown:.2f} mm of {travel:.2f} mm finger travel")
                if expect.get("scroll") and not close(last.get("scale", 1), 1, 0.01):
                    problems.append(f"scroll scale {last.get('scale')}")
        if expect.get("pinch") and len(contacts) >= 2 and same:
            self.check_pinch(contacts, gestures, mm, problems, res)
        if expect.get("handoff") and same:
            self.check_handoff(gestures, problems)
            # Pinned: the content under the finger that stays down the whole time is under it at the
            # end (less the pan slop the content may lag by).
            stays = contacts[:1]
            if gestures and stays and stays[0].positions and res[0] > 0 and res[1] > 0:
                p0, p1 = mm(*stays[0].positions[0][2:]), mm(*stays[0].positions[-1][2:])
                # The matrix is the device's cumulative transform: the content point under the finger
                # at the start is the first segment's matrix (at its begin) inverted at p0.
                a, b, c, d, tx, ty = gestures[0]["matrix"]
                det = a * d - b * c
                u, v = p0[0] - tx, p0[1] - ty
                content = ((d * u - c * v) / det, (a * v - b * u) / det)
                a, b, c, d, tx, ty = gestures[-1]["matrix"]
                q = (a * content[0] + c * content[1] + tx, b * content[0] + d * content[1] + ty)
                off = math.hypot(q[0] - p1[0], q[1] - p1[1])
                travel = math.hypot(p1[0] - p0[0], p1[1] - p0[1])
                if off > PAN_SLOP_MM + 0.01 * travel + 0.05:
                    problems.append(f"the content under the staying finger is {off:.2f} mm off it")
        if expect.get("click"):
            presses = [v for t, v in buttons if start <= t <= end]
            if presses != [1, 0]:
                kernel_notes.append(f"the kernel's BTN_LEFT changes {presses}")
            # The click is a button, no touch: the touches go on through it, and no tap is reported.
            if any(m["type"] == "tap" for m in msgs):
                problems.append("a click was reported as a tap")
        if expect.get("vanish") and len(contacts) == 2:
            first, second = sorted(contacts, key=lambda c: (c.begin_time, c.slot))
            if second.end_time is not None and first.end_time is not None and second.end_time >= first.end_time:
                kernel_notes.append("the kernel kept the unreported contact down until the device lifted it")
        if expect.get("palm") and len(contacts) == 2:
            first, second = sorted(contacts, key=lambda c: (c.begin_time, c.slot))
            if not second.palm and second.end_time is not None and first.end_time is not None \
                    and second.end_time >= first.end_time:
                kernel_notes.append("the kernel kept the low-confidence contact as a finger")
        if problems:
            return "FAIL", "; ".join(problems[:4])
        if kernel_notes:
            return "KERNEL", "; ".join(kernel_notes)
        return "PASS", ""

    @staticmethod
    def max_simultaneous(contacts):
        events = []
        for c in contacts:
            events.append((c.begin_time, 1))
            if c.end_time is not None:
                events.append((c.end_time, -1))
        events.sort(key=lambda e: (e[0], e[1]))
        best = now = 0
        for _, d in events:
            now += d
            best = max(best, now)
        return best

    def check_pinch(self, contacts, gestures, mm, problems, res):
        segs = [g for g in gestures if g["mode"] == "pinchRotate"]
        if not segs:
            problems.append("no pinchRotate gesture")
            return
        last = segs[-1]
        two = sorted(contacts, key=lambda c: c.begin_time)[:2]
        if res[0] <= 0 or not all(c.positions for c in two):
            return
        a0, b0 = mm(*two[0].positions[0][2:]), mm(*two[1].positions[0][2:])
        a1, b1 = mm(*two[0].positions[-1][2:]), mm(*two[1].positions[-1][2:])
        d0 = math.hypot(b0[0] - a0[0], b0[1] - a0[1])
        d1 = math.hypot(b1[0] - a1[0], b1[1] - a1[1])
        rot = math.atan2(b1[1] - a1[1], b1[0] - a1[0]) - math.atan2(b0[1] - a0[1], b0[0] - a0[0])
        scale = d1 / d0
        if not close(last["scale"], scale, 0.01 * scale):
            problems.append(f"scale {last['scale']:.4f}, fingers {scale:.4f}")
        if not close(last["rotation"], rot, 0.01 * abs(rot) + 0.002):
            problems.append(f"rotation {last['rotation']:.4f}, fingers {rot:.4f}")

    @staticmethod
    def check_handoff(gestures, problems):
        """Every segment change keeps the matrix: the content never jumps."""
        previous = None
        for g in gestures:
            if g["phase"] == "began" and previous is not None:
                if any(abs(a - b) > 1e-6 * max(1, abs(a)) for a, b in zip(previous, g["matrix"])):
                    problems.append(f"jump at a segment change: {previous} -> {g['matrix']}")
            if g["phase"] in ("ended", "cancelled", "changed", "began"):
                previous = g["matrix"]
        # How many segments there are depends on time: frames bunched by a stall of the guest put the
        # one-finger stretch inside the finger-churn debounce (50 ms), which then makes no segment of
        # its own (docs/GESTURES.md). Continuity and the pin hold either way; they are the check.
        if not any(g["phase"] == "began" for g in gestures):
            problems.append("no gesture segment")


def daemon_health(work):
    status = open(os.path.join(work, "daemon.status")).read() if os.path.exists(os.path.join(work, "daemon.status")) else "missing"
    log = open(os.path.join(work, "daemon.log"), errors="replace").read() if os.path.exists(os.path.join(work, "daemon.log")) else ""
    errors = [line for line in log.splitlines() if re.match(r"^\S+ (error|critical) ", line)]
    problems = []
    if not status.startswith("alive"):
        problems.append(f"multitouchd {status.strip()}")
    if errors:
        problems.append(f"{len(errors)} error line(s): {errors[0][:160]}")
    return problems, log


def main():
    args = sys.argv[1:]
    table = None
    if "--table" in args:
        i = args.index("--table")
        table = args[i + 1]
        del args[i : i + 2]
    work, *names = args
    health, log = daemon_health(work)
    totals = {s: {"PASS": 0, "KERNEL": 0, "FAIL": 0, "LOAD": 0} for s in SCENARIOS}
    rows = []
    failed = passed = kernel = load = 0
    for name in names:
        plan = json.load(open(os.path.join(work, "plans", name + ".json")))
        path = os.path.join(work, "out", name + ".json")
        out = json.load(open(path)) if os.path.exists(path) else {"errors": ["the guest wrote no record"]}
        results, summary = DeviceJudge(plan, out, log).judge()
        for scenario, (status, detail) in results.items():
            if health and status == "PASS":
                status, detail = "FAIL", "; ".join(health)
            totals.setdefault(scenario, {"PASS": 0, "KERNEL": 0, "FAIL": 0, "LOAD": 0})[status] += 1
            if status == "FAIL":
                failed += 1
            elif status == "KERNEL":
                kernel += 1
            elif status == "LOAD":
                load += 1
            else:
                passed += 1
            print(f"{status} {name} / {scenario}" + (f": {detail}" if detail else ""))
        rows.append((plan, summary, results))
    print()
    print("scenario totals (pass / kernel's doing / fail / not judged: overflow under load):")
    for scenario, t in totals.items():
        if sum(t.values()):
            print(f"  {scenario:18s} {t['PASS']:3d} / {t['KERNEL']:2d} / {t['FAIL']:2d} / {t['LOAD']:2d}")
    if table:
        write_table(table, rows, totals)
    # KERNEL: the daemon showed what the kernel reported, the kernel's contacts differ from the
    # scenario's (named on each line): neither a pass nor a failure of multitouchd.
    print(f"device matrix: {kernel} scenario(s) where the kernel's contacts differ from the fingers (explained), "
          f"{load} not judged (a reader overflowed under load)")
    # More than a tenth overflowed: the host was too busy for the run to say anything.
    too_loaded = load * 10 > passed + kernel + load + failed
    if too_loaded:
        print("device matrix: too many overflows; the host was too loaded for this run to count")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 and not too_loaded else 1


def write_table(path, rows, totals):
    mark = {"PASS": "✓", "KERNEL": "k", "FAIL": "✗", "LOAD": "o"}
    lines = ["| device | class (kernel) | quirks | slots | " + " | ".join(SCENARIOS) + " |",
             "|---|---|---|---|" + "---|" * len(SCENARIOS)]
    notes = {}
    for plan, summary, results in rows:
        cells = []
        for s in SCENARIOS:
            if s in results:
                status, detail = results[s]
                cells.append(mark[status])
                if status != "PASS":
                    notes.setdefault((s, status, detail), []).append(plan["name"])
            else:
                cells.append("–")
        klass = summary.get("kernelClass", "?")
        if summary.get("pens"):
            klass += f" + pen node (not served)"
        if summary.get("resolution") and 0 in summary["resolution"]:
            klass += ", no resolution"
        quirks = ", ".join(q.replace("SLOT_IS_", "").replace("VALID_IS_", "VALID=").lower() for q in plan["quirks"]) or "–"
        lines.append(f"| {plan['name']} | {klass} | {quirks} | {summary.get('slots', '?')} | " + " | ".join(cells) + " |")
    total = ["", "Totals (pass / kernel's doing / fail / overflow under load): " + "; ".join(
        f"{s} {t['PASS']}/{t['KERNEL']}/{t['FAIL']}/{t['LOAD']}" for s, t in totals.items() if sum(t.values()))]
    explained = []
    for (scenario, status, detail), names in sorted(notes.items(), key=lambda n: -len(n[1])):
        who = ", ".join(names) if len(names) <= 6 else f"{len(names)} devices"
        label = {"KERNEL": "kernel", "LOAD": "overflow", "FAIL": "FAIL"}[status]
        explained.append(f"- {scenario} ({label}), {who}: {detail}")
    with open(path, "w") as f:
        f.write("\n".join(lines + total + [""] + explained) + "\n")


if __name__ == "__main__":
    sys.exit(main())
