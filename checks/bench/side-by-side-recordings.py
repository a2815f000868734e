#!/usr/bin/env python3
"""Builds the side-by-side benchmark's recordings (checks/bench/side-by-side.sh) from real ones.

    side-by-side-recordings.py repeat OUT COUNT EVENTS [DESC]
    side-by-side-recordings.py ten-fingers OUT COUNT EVEMU
    side-by-side-recordings.py protocol-a OUT DESC EVENTS [EVENTS...]

repeat       EVENTS (with DESC for a headerless .events file) COUNT times, 0.5 s apart.
ten-fingers  the real 5-finger recording EVEMU (dell_canvas_touch) laid over a mirrored copy of itself
             (x -> max - x, slots +5, tracking ids +1000, 4 frames later) so that up to 10 fingers are
             down at once; ABS_MT_SLOT's maximum becomes 9, BTN_TOUCH follows the union of both hands.
             Then repeated COUNT times. Every position and every frame time is a real one.
protocol-a   the real protocol-B touchpad recordings EVENTS of the device DESC, one after the other,
             rewritten as protocol A the way such a kernel driver reports: no ABS_MT_SLOT, no
             ABS_MT_TRACKING_ID, every frame lists each contact down (its MT axes, then SYN_MT_REPORT).
             The single-touch axes and BTN_TOOL_* keys stay as recorded.

Every output has fuzz 0 (the values were filtered once by the real device's fuzz already), starts at
1 s (evemu's "t=0 means no timing") and has every gap longer than 0.3 s while no finger is down
shortened to 0.3 s (idle time measures nothing and would only lengthen the guest run).
"""

import sys

EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
SYN_REPORT, SYN_MT_REPORT = 0, 2
BTN_TOUCH = 0x14A
ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_TRACKING_ID = 0x2F, 0x35, 0x39
IDLE_GAP = 0.3


def parse(paths):
    """(header lines, frames) of an evemu recording; a frame is (time, [(type, code, value)]) without its
    SYN_REPORT. The header comes from the last path that has one (the .desc of a headerless .events)."""
    header, frames, pending = [], [], []
    for path in paths:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
        own = [line for line in lines if not line.startswith("E:")]
        if any(line.startswith("A:") for line in own):
            header = own
    with open(paths[0], errors="replace") as f:
        lines = f.read().splitlines()
    for line in lines:
        if not line.startswith("E:"):
            continue
        p = line.split()
        time, event = float(p[1]), (int(p[2], 16), int(p[3], 16), int(p[4]))
        if event[0] == EV_SYN and event[1] == SYN_REPORT:
            frames.append((time, pending))
            pending = []
        else:
            pending.append(event)
    return header, frames


def abs_info(header, code):
    for line in header:
        p = line.split()
        if p[:1] == ["A:"] and int(p[1], 16) == code:
            return [int(x) for x in p[2:]]
    return None


def write(out, header, frames, drop_codes=(), slot_max=None):
    """Writes the header (fuzz 0; without the EV_ABS codes in drop_codes; ABS_MT_SLOT's max set to
    slot_max) and the frames, idle gaps shortened, the first at 1 s."""
    with open(out, "w") as f:
        for line in header:
            p = line.split()
            if p[:1] == ["A:"]:
                code = int(p[1], 16)
                if code in drop_codes:
                    continue
                p[4] = "0"
                if code == ABS_MT_SLOT and slot_max is not None:
                    p[3] = str(slot_max)
                line = " ".join(p)
            elif p[:2] == ["B:", "03"] and drop_codes:
                bits = [int(x, 16) for x in p[2:]]
                for code in drop_codes:
                    bits[code // 8] &= ~(1 << (code % 8))
                line = " ".join(p[:2] + ["%02x" % b for b in bits])
            f.write(line + "\n")
        down, clock, last = set(), 1.0, None
        for time, events in frames:
            if last is not None:
                gap = time - last
                clock += min(gap, IDLE_GAP) if not down else gap
            last = time
            for type_, code, value in events:
                f.write("E: %.6f %04x %04x %d\n" % (clock, type_, code, value))
                if type_ == EV_KEY and code == BTN_TOUCH:
                    (down.add if value else down.discard)(0)
            f.write("E: %.6f 0000 0000 0\n" % clock)


def repeated(frames, count):
    out, shift = [], 0.0
    span = frames[-1][0] - frames[0][0] + 0.5
    for _ in range(count):
        out += [(t + shift, events) for t, events in frames]
        shift += span
    return out


def ten_fingers(header, frames, lag=4):
    x_info = abs_info(header, ABS_MT_POSITION_X)
    x_max = x_info[1] if x_info else 0
    n = len(frames)
    out, slot_of = [], {"a": 0, "b": 0}
    down = {"a": set(), "b": set()}
    touching = False
    for i in range(n + lag):
        events, current = [], [("a", slot_of["a"])]

        def hand(name, source, offset, mirror):
            for type_, code, value in source:
                if type_ == EV_KEY and code == BTN_TOUCH:
                    continue
                if type_ != EV_ABS or code < ABS_MT_SLOT:
                    if name == "a":
                        events.append((type_, code, value))
                    continue
                if code == ABS_MT_SLOT:
                    slot_of[name] = value
                    continue
                if current[0] != (name, slot_of[name]):
                    events.append((EV_ABS, ABS_MT_SLOT, slot_of[name] + offset))
                    current[0] = (name, slot_of[name])
                if code == ABS_MT_TRACKING_ID:
                    (down[name].discard if value < 0 else down[name].add)(slot_of[name])
                    value = value if value < 0 else value + offset * 200
                elif code == ABS_MT_POSITION_X and mirror:
                    value = x_max - value
                events.append((type_, code, value))

        if i < n:
            hand("a", frames[i][1], 0, False)
        if i >= lag:
            hand("b", frames[i - lag][1], 5, True)
        # Leave the kernel's current slot where hand a's next frame expects it.
        if current[0] != ("a", slot_of["a"]):
            events.append((EV_ABS, ABS_MT_SLOT, slot_of["a"]))
        now_touching = bool(down["a"] or down["b"])
        if now_touching != touching:
            events.append((EV_KEY, BTN_TOUCH, int(now_touching)))
            touching = now_touching
        time = frames[i][0] if i < n else frames[i - lag][0] + (frames[-1][0] - frames[-1 - lag][0])
        out.append((time, events))
    return out


def protocol_a(frames):
    out, slot, contacts = [], 0, {}
    for time, events in frames:
        rest = []
        for type_, code, value in events:
            if type_ == EV_ABS and code == ABS_MT_SLOT:
                slot = value
            elif type_ == EV_ABS and code == ABS_MT_TRACKING_ID:
                if value < 0:
                    contacts.pop(slot, None)
                else:
                    contacts[slot] = {}
            elif type_ == EV_ABS and code > ABS_MT_SLOT:
                contacts.setdefault(slot, {})[code] = value
            else:
                rest.append((type_, code, value))
        frame = []
        for s in sorted(contacts):
            frame += [(EV_ABS, code, value) for code, value in sorted(contacts[s].items())]
            frame.append((EV_SYN, SYN_MT_REPORT, 0))
        if not contacts:
            frame.append((EV_SYN, SYN_MT_REPORT, 0))
        out.append((time, frame + rest))
    return out


def main(argv):
    kind, out = argv[1], argv[2]
    if kind == "repeat":
        header, frames = parse(argv[4:])
        write(out, header, repeated(frames, int(argv[3])))
    elif kind == "ten-fingers":
        header, frames = parse(argv[4:5])
        write(out, header, repeated(ten_fingers(header, frames), int(argv[3])), slot_max=9)
    elif kind == "protocol-a":
        frames, shift = [], 0.0
        for path in argv[4:]:
            header, more = parse([path, argv[3]])
            base = more[0][0]
            frames += [(t - base + shift, events) for t, events in more]
            shift = frames[-1][0] + 0.5
        write(out, header, protocol_a(frames), drop_codes=(ABS_MT_SLOT, ABS_MT_TRACKING_ID))
    else:
        sys.exit("usage: see the docstring")


if __name__ == "__main__":
    main(sys.argv)
