#!/usr/bin/env python3
"""Device matrix, step 1 (on the host): one plan per HID device of ../shared/hid-devices/devices.json.

A plan holds what the guest needs to make the device through uhid (ids, report descriptor, the answers
to the kernel's feature requests) and the scenarios as HID input reports with their times, each written
once here in millimetres about the surface's centre and mapped onto the device's logical range through
the resolution the kernel derives from the descriptor (hidinput_calc_abs_res). The reports are built by
hid-tools (hidtools.hid.ReportDescriptor.create_report), as the kernel's own HID selftests build them.

usage: plan.py DEVICES_JSON OUT_DIR [--only NAME,NAME...]
Writes OUT_DIR/<name>.json, one per device. Needs hid-tools (checks/devices/hid-tools.sh installs it).
"""
import json
import math
import os
import sys

from hidtools.hid import ReportDescriptor

FRAME_MS = 10  # the scan period every scenario plays at (100 Hz, as most of these panels report)
GAP_MS = 450  # between scenarios: beyond the double-tap interval (300 ms), so no tap chains across


class Contact:
    """One finger's values for hid-tools: attribute names are HID usage names, lower case, no spaces."""

    def __init__(self, cid, x, y, tip=True, confidence=True, shape=None, in_range_on_release=False):
        self.contactid = cid
        self.x = x
        self.y = y
        self.cx = x
        self.cy = y
        self.tipswitch = 1 if tip else 0
        # A VALID_IS_INRANGE device lifts a finger with tip 0 while still in range (out of range the
        # contact is not valid, and its release would never reach the kernel's slot).
        self.inrange = 1 if tip or in_range_on_release else 0
        self.confidence = 1 if confidence else 0
        self.azimuth = 0
        # A constant shape and pressure inside each field's range: only position changes.
        for name, value in (shape or {}).items():
            setattr(self, name, value)


class Globals:
    pass


def signed_nibble(value):
    value &= 0xF
    return value - 16 if value > 7 else value


def kernel_resolution(field):
    """hidinput_calc_abs_res for a position axis: units per mm, 0 when the descriptor gives none."""
    logical = field.logical_max - field.logical_min
    physical = (field.physical_max or 0) - (field.physical_min or 0)
    if logical <= 0 or physical <= 0:
        return 0
    exponent = signed_nibble(field.unit_exp or 0)
    unit = field.unit or 0
    if unit == 0x11:  # centimetres
        exponent += 1
    elif unit == 0x13:  # inches
        physical *= 254
        exponent -= 1
    else:
        return 0
    while exponent < 0:
        logical *= 10
        exponent += 1
    while exponent > 0:
        physical *= 10
        exponent -= 1
    return (logical + physical // 2) // physical


class Device:
    """What the plan needs from one descriptor."""

    def __init__(self, entry):
        self.entry = entry
        self.name = entry["name"]
        self.quirks = entry.get("quirks") or []
        self.rdesc_bytes = [int(b, 16) for b in entry["rdesc"].split()]
        self.rdesc = ReportDescriptor.from_bytes(self.rdesc_bytes)
        best = None
        for report in self.rdesc.input_reports.values():
            if report.application_name not in ("Touch Screen", "Touch Pad"):
                continue
            count = [f.usage_name for f in report].count("Contact Id")
            if count and (best is None or count > best[0]):
                best = (count, report)
        if best is None:
            raise ValueError(f"{self.name}: no touch report with Contact Id")
        self.per_report, self.report = best
        self.application = self.report.application_name
        usages = [f.usage_name for f in self.report]
        self.has_contact_count = "Contact Count" in usages
        self.has_confidence = "Confidence" in usages
        self.has_scan_time = "Scan Time" in usages
        self.has_button = "B1" in usages
        self.pen_report = any(r.application_name == "Pen" for r in self.rdesc.input_reports.values())
        xs = [f for f in self.report if f.usage_name == "X"]
        ys = [f for f in self.report if f.usage_name == "Y"]
        self.xf, self.yf = xs[0], ys[0]
        self.res = (kernel_resolution(self.xf), kernel_resolution(self.yf))
        self.max_contacts = self._max_contacts()
        self.shape = {}
        for usage, attribute in (("Tip Pressure", "tippressure"), ("Pressure", "pressure"), ("Width", "width"),
                                 ("Height", "height")):
            for f in self.report:
                if f.usage_name == usage:
                    self.shape[attribute] = max(f.logical_min, min(f.logical_max, max(1, f.logical_max // 4)))
                    break
        scan = [f for f in self.report if f.usage_name == "Scan Time"]
        self.scan_max = scan[0].logical_max if scan else 0

    def _max_contacts(self):
        stated = self.entry.get("max_contacts")
        if stated:
            return stated
        best = None
        for report in self.rdesc.feature_reports.values():
            for f in report:
                if f.usage_name == "Contact Max" and f.logical_max > 0:
                    best = f.logical_max if best is None else min(best, f.logical_max)
        if self.has_contact_count:
            for f in self.report:
                if f.usage_name == "Contact Count" and f.logical_max > 0:
                    best = f.logical_max if best is None else min(best, f.logical_max)
        return best or self.per_report

    def size_mm(self):
        """Width and height of the logical range in mm (the kernel's resolution; 100 units/mm where
        the descriptor gives none: only the plan's geometry uses it, the checks read the kernel's)."""
        w = (self.xf.logical_max - self.xf.logical_min) / (self.res[0] or 100)
        h = (self.yf.logical_max - self.yf.logical_min) / (self.res[1] or 100)
        return w, h

    def to_logical(self, mx, my):
        """A point in mm from the surface's top-left corner -> logical units (clamped inside)."""
        rx = self.res[0] or 100
        ry = self.res[1] or 100
        x = self.xf.logical_min + round(mx * rx)
        y = self.yf.logical_min + round(my * ry)
        return (min(max(x, self.xf.logical_min), self.xf.logical_max), min(max(y, self.yf.logical_min), self.yf.logical_max))

    def features(self):
        """The answers to the kernel's GET_REPORT for feature reports: Contact Max and the rest zero."""
        answers = {}
        for rid, report in self.rdesc.feature_reports.items():
            data = Globals()
            data.contactmax = self.max_contacts
            data.contactcountmaximum = self.max_contacts
            data.buttontype = 0
            try:
                answers[str(report.report_ID)] = report.create_report([data], None)
            except Exception:  # a feature hid-tools cannot fill: answer zeros of its size
                answers[str(report.report_ID)] = [report.report_ID] + [0] * (report.size - 1)
        return answers


class Script:
    """A scenario as frames: each frame is the contacts down (id -> state) at a time, plus a button."""

    def __init__(self, device):
        self.device = device
        self.frames = []
        self.t = 0
        self.down = {}  # cid -> [x, y, confidence]
        self.button = 0
        self.next_id = 1
        self.released = []  # contacts to report once more with tip 0
        self.vanished = set()  # contacts no longer reported, without a release

    def new_id(self):
        # Contact ids stay small: SLOT_IS_CONTACTID devices use them as slot numbers (from 0). Others
        # start at 1: a report's unused finger collections are zeros, contact id 0 with the tip up,
        # which an ALWAYS_VALID device's kernel driver takes for contact 0 lifting.
        used = set(self.down) | self.vanished
        cid = 0 if "SLOT_IS_CONTACTID" in self.device.quirks else 1
        while cid in used:
            cid += 1
        return cid

    def land(self, mx, my):
        cid = self.new_id()
        self.down[cid] = [mx, my, True]
        return cid

    def move(self, cid, mx, my):
        self.down[cid][0] = mx
        self.down[cid][1] = my

    def lift(self, cid):
        x, y, c = self.down.pop(cid)
        self.released.append((cid, x, y, c))

    def frame(self, advance_ms=FRAME_MS, scan_advance_ms=None):
        contacts = []
        for cid, (x, y, c) in sorted(self.down.items()):
            lx, ly = self.device.to_logical(x, y)
            contacts.append({"id": cid, "x": lx, "y": ly, "tip": True, "confidence": c})
        for cid, x, y, c in self.released:
            lx, ly = self.device.to_logical(x, y)
            contacts.append({"id": cid, "x": lx, "y": ly, "tip": False, "confidence": c})
        self.released = []
        self.frames.append({"t": self.t, "scan_ms": scan_advance_ms if scan_advance_ms is not None else advance_ms,
                            "contacts": contacts, "button": self.button})
        self.t += advance_ms

    def hold(self, ms):
        for _ in range(max(1, int(ms / FRAME_MS))):
            self.frame()


def scenarios(device):
    """Every scenario that applies to the device, in mm about its surface."""
    w, h = device.size_mm()
    cx, cy = w / 2, h / 2
    r = min(w, h)
    out = []
    pad = device.application == "Touch Pad"

    def add(name, script, **expect):
        out.append({"name": name, "frames": script.frames, "expect": expect})

    # one-finger tap
    s = Script(device)
    a = s.land(0.3 * w, 0.3 * h)
    s.hold(40)
    s.lift(a)
    s.frame()
    add("tap", s, touches=1, taps=1)
    # double tap (at another spot: no chain with the tap above)
    s = Script(device)
    for _ in range(2):
        a = s.land(0.7 * w, 0.3 * h)
        s.hold(40)
        s.lift(a)
        s.frame()
        s.hold(100)
    add("double tap", s, touches=2, doubleTaps=1)
    # long hold
    s = Script(device)
    a = s.land(0.3 * w, 0.7 * h)
    s.hold(700)
    s.lift(a)
    s.frame()
    add("long hold", s, touches=1, longPress=1)
    # pan: 40 % of the width in 300 ms
    s = Script(device)
    x0, y0 = 0.3 * w, 0.6 * h
    a = s.land(x0, y0)
    s.frame()
    steps = 30
    for i in range(1, steps + 1):
        s.move(a, x0 + 0.4 * w * i / steps, y0 - 0.1 * h * i / steps)
        s.frame()
    s.lift(a)
    s.frame()
    add("pan", s, touches=1, pan=True)
    if device.max_contacts >= 2:
        # two-finger pinch to 1.6 times the spread, rotating 0.5 rad about the centre
        s = Script(device)
        r0 = 0.12 * r
        ids = [s.land(cx - r0, cy), s.land(cx + r0, cy)]
        s.frame()
        steps = 40
        for i in range(1, steps + 1):
            k = i / steps
            rr = r0 * (1 + 0.6 * k)
            ang = 0.5 * k
            s.move(ids[0], cx - rr * math.cos(ang), cy - rr * math.sin(ang))
            s.move(ids[1], cx + rr * math.cos(ang), cy + rr * math.sin(ang))
            s.frame()
        for c in ids:
            s.lift(c)
        s.frame()
        add("pinch-rotate", s, touches=2, pinch=True)
        # 2 -> 1 -> 2: two fingers pan, one lifts, the other goes on, a finger lands again
        s = Script(device)
        d = 0.1 * r
        p = [[cx - 0.25 * w, cy - d], [cx - 0.25 * w, cy + d]]
        ids = [s.land(*p[0]), s.land(*p[1])]
        s.frame()

        def pan_step(n, dx):
            for _ in range(n):
                for i, c in enumerate(ids):
                    if c is None:
                        continue
                    p[i][0] += dx
                    s.move(c, *p[i])
                s.frame()

        step = 0.5 * w / 60
        pan_step(20, step)
        s.lift(ids[1])
        ids[1] = None
        s.frame()
        pan_step(20, step)
        p[1] = [p[0][0], p[0][1] + 2 * d]
        ids[1] = s.land(*p[1])
        s.frame()
        pan_step(20, step)
        for c in ids:
            s.lift(c)
        s.frame()
        add("hand-off 2-1-2", s, touches=3, handoff=True)
        # a contact stops being reported without a release, then the other lifts
        s = Script(device)
        ids = [s.land(0.35 * w, 0.5 * h), s.land(0.65 * w, 0.5 * h)]
        s.hold(50)
        gone = ids[1]
        del s.down[gone]
        s.vanished.add(gone)
        s.hold(150)
        s.lift(ids[0])
        s.frame()
        # The device never releases it; make sure nothing stays down in the kernel for the next
        # scenario: report the vanished id once more, lifted (what a device does when it returns).
        s.vanished.discard(gone)
        s.released.append((gone, 0.65 * w, 0.5 * h, True))
        s.frame()
        add("vanish", s, touches=2, vanish=True)
        if device.has_confidence:
            # palm: one contact's confidence drops mid-motion
            s = Script(device)
            ids = [s.land(0.35 * w, 0.5 * h), s.land(0.65 * w, 0.5 * h)]
            s.frame()
            for i in range(10):
                s.move(ids[1], 0.65 * w, 0.5 * h + 0.01 * h * (i + 1))
                s.frame()
            s.down[ids[1]][2] = False
            s.hold(80)
            # The lift is reported with confidence again: a VALID_IS_CONFIDENCE device's kernel driver
            # ignores a contact without it, release included, and it would stay down for good.
            s.down[ids[1]][2] = True
            for c in ids:
                s.lift(c)
            s.frame()
            add("palm", s, touches=2, palm=True)
    # as many fingers as the device reports at once, landing and lifting one by one
    n = device.max_contacts
    s = Script(device)
    cols = max(1, math.ceil(math.sqrt(n * w / max(h, 1e-6))))
    rows = math.ceil(n / cols)
    ids = []
    for i in range(n):
        gx = (i % cols + 0.5) / cols
        gy = (i // cols + 0.5) / rows
        ids.append(s.land(0.1 * w + 0.8 * w * gx, 0.1 * h + 0.8 * h * gy))
        s.frame()
    s.hold(30)
    for c in ids:
        s.lift(c)
        s.frame()
    add("max fingers", s, touches=n, maxFingers=n)
    if pad:
        for fingers in (1, 2):
            s = Script(device)
            ids = [s.land(0.4 * w + 0.2 * w * i, 0.5 * h) for i in range(fingers)]
            s.hold(60)
            s.button = 1
            s.hold(80)
            s.button = 0
            s.hold(40)
            for c in ids:
                s.lift(c)
            s.frame()
            add(f"click {fingers}", s, touches=fingers, click=True)
        s = Script(device)
        p = [[0.4 * w, 0.3 * h], [0.6 * w, 0.3 * h]]
        ids = [s.land(*p[0]), s.land(*p[1])]
        s.frame()
        for _ in range(30):
            for i, c in enumerate(ids):
                p[i][1] += 0.4 * h / 30
                s.move(c, *p[i])
            s.frame()
        for c in ids:
            s.lift(c)
        s.frame()
        add("two-finger scroll", s, touches=2, scroll=True)
    if device.max_contacts >= 2:
        # a burst after a stall: a pinch the sensor scanned every 10 ms; after 5 frames the machine
        # stalls and the remaining frames reach the kernel back to back (their scan times still 10 ms apart)
        s = Script(device)
        r0 = 0.1 * r
        ids = [s.land(cx - r0, cy), s.land(cx + r0, cy)]
        s.frame()
        steps = 30
        for i in range(1, steps + 1):
            rr = r0 * (1 + 1.0 * i / steps)
            s.move(ids[0], cx - rr, cy)
            s.move(ids[1], cx + rr, cy)
            s.frame(advance_ms=FRAME_MS if i < 5 else 0, scan_advance_ms=FRAME_MS)
        s.t += 40
        for c in ids:
            s.lift(c)
        s.frame()
        add("burst after stall", s, touches=2, pinch=True, burst=True)
    return out


def reports_for(device, frame, scan_time):
    """The HID input reports of one frame: contacts spread over as many reports as the device's
    report carries (hybrid mode: the first report carries the contact count, the others 0)."""
    contacts = [Contact(c["id"], c["x"], c["y"], c["tip"], c["confidence"], device.shape,
                        "VALID_IS_INRANGE" in device.quirks) for c in frame["contacts"]]
    g = Globals()
    g.scantime = scan_time
    g.b1 = frame["button"]
    g.contactcount = len(contacts)
    reports = []
    # No contact: a device sends nothing (time passes), as the kernel tests' Digitizer.event does.
    while contacts:
        chunk = contacts[: device.per_report]
        contacts = contacts[device.per_report:]
        reports.append(device.rdesc.create_report(list(chunk), g, reportID=device.report.report_ID))
        g.contactcount = 0
    return reports


def plan(entry):
    device = Device(entry)
    out = {
        "name": device.name,
        "class": entry["class"],
        "bus": entry["bus"],
        "vendor": int(entry["vendor"], 16),
        "product": int(entry["product"], 16),
        "rdesc": device.rdesc_bytes,
        "features": device.features(),
        "application": device.application,
        "quirks": entry.get("quirks") or [],
        "perReport": device.per_report,
        "maxContacts": device.max_contacts,
        "hasConfidence": device.has_confidence,
        "hasScanTime": device.has_scan_time,
        "hasContactCount": device.has_contact_count,
        "penReport": device.pen_report,
        "plannedResolution": list(device.res),
        "x": [device.xf.logical_min, device.xf.logical_max],
        "y": [device.yf.logical_min, device.yf.logical_max],
        "scenarios": [],
    }
    scan = 1000  # in the scan time's 100 us units
    for scenario in scenarios(device):
        for frame in scenario["frames"]:
            scan += int(frame["scan_ms"] * 10)
            value = scan % (device.scan_max + 1) if device.scan_max else 0
            frame["reports"] = reports_for(device, frame, value)
        out["scenarios"].append(scenario)
        scan += GAP_MS * 10
    return out


def main():
    args = sys.argv[1:]
    only = None
    if "--only" in args:
        i = args.index("--only")
        only = set(args[i + 1].split(","))
        del args[i : i + 2]
    devices_json, out_dir = args
    os.makedirs(out_dir, exist_ok=True)
    entries = json.load(open(devices_json))["devices"]
    names = []
    for entry in entries:
        if only and entry["name"] not in only:
            continue
        p = plan(entry)
        with open(os.path.join(out_dir, entry["name"] + ".json"), "w") as f:
            json.dump(p, f)
        names.append(entry["name"])
    if only and len(names) != len(only):
        print(f"plan: unknown device(s): {sorted(only - set(names))}", file=sys.stderr)
        return 2
    print(f"plan: {len(names)} device(s) planned in {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
