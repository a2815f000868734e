#!/usr/bin/env python3
"""Compares two folders of `multitouchctl replay --json` output across a number-precision change.

    python3 checks/protocol/compare-replays.py OLD_DIR NEW_DIR

Both folders hold one file per recording (as /work/replay-all.sh or any loop over `replay --json`
writes them); files are paired by name. For every pair, line by line and field by field:

- the same files, the same number of lines, the same message types and the same keys, except that
  NEW may leave out a touch's mmX/mmY where OLD had them equal to x/y (protocol 2; anywhere else a
  missing or extra key is a difference);
- every string, boolean and integer field equal;
- every number equal within the documented precision of its field (docs/PROTOCOL.md "Number
  precision": half a step, plus the double rounding of scaling by 10^decimals), and NEW's text of a
  fixed-precision number has no more decimals than its step;
- every non-JSON file (stderr, .err) equal byte for byte.

Prints the differences (up to 20), then a summary: files, lines, numbers compared, mmX/mmY pairs left
out, and the largest difference per field. Exits 1 on any difference.
"""

import json
import os
import re
import sys

THREE = 0.001
SIX = 0.000001

# (message type, field path with [] for every array index) -> the step the field is rounded to.
# Paths are written as the writer's key tables: `touches[].x`, `velocity.translation[]`, `matrix[4]`.
STEPS = {}
for key in ("x", "y", "prevX", "prevY", "mmX", "mmY", "majorRadius", "minorRadius", "predicted[]",
            "coalesced[][0]", "coalesced[][1]"):
    STEPS[("touches", "touches[]." + key)] = THREE
for key in ("nx", "ny", "orientation", "force"):
    STEPS[("touches", "touches[]." + key)] = SIX
MATRIX = {"[0]": SIX, "[1]": SIX, "[2]": SIX, "[3]": SIX, "[4]": THREE, "[5]": THREE}
for name, step in MATRIX.items():
    for kind, key in (("gesture", "matrix"), ("gesture", "predictedMatrix"), ("doubleTap", "matrix"),
                      ("transform", "matrix")):
        STEPS[(kind, key + name)] = step
STEPS.update({
    ("gesture", "centroid[]"): THREE, ("gesture", "translation[]"): THREE,
    ("gesture", "velocity.translation[]"): THREE, ("gesture", "scale"): SIX, ("gesture", "rotation"): SIX,
    ("gesture", "velocity.scale"): SIX, ("gesture", "velocity.rotation"): SIX,
    ("tap", "location[]"): THREE, ("doubleTap", "location[]"): THREE, ("longPress", "location[]"): THREE,
})

NUMBER = re.compile(r"-?\d+(?:\.(\d+))?(?:[eE][-+]?\d+)?")


class Comparison:
    def __init__(self):
        self.problems = []
        self.files = self.lines = self.numbers = self.fixed = self.dropped = 0
        self.max_difference = {}

    def problem(self, where, what):
        self.problems.append("%s: %s" % (where, what))

    def step(self, kind, path):
        """The field's step, for a path whose matrix elements are named [0]..[5] and other indices []."""
        step = STEPS.get((kind, path))
        if step is None:
            step = STEPS.get((kind, re.sub(r"\[\d\]$", "[]", path)))
        return step

    def number(self, where, kind, path, old, new):
        self.numbers += 1
        step = self.step(kind, path)
        difference = abs(old - new)
        field = "%s.%s" % (kind, path)
        self.max_difference[field] = max(self.max_difference.get(field, 0.0), difference)
        if step is None:
            if old != new:
                self.problem(where, "%s: %r != %r (an exact field)" % (path, old, new))
            return
        self.fixed += 1
        if difference > step / 2 + abs(old) * 1e-12 + 1e-12:
            self.problem(where, "%s: %r -> %r differs by %g, more than half of %g" % (path, old, new, difference, step))

    def value(self, where, kind, path, old, new):
        if isinstance(old, bool) or isinstance(new, bool) or isinstance(old, str) or old is None:
            if old != new or type(old) is not type(new):
                self.problem(where, "%s: %r != %r" % (path, old, new))
        elif isinstance(old, (int, float)):
            if not isinstance(new, (int, float)):
                self.problem(where, "%s: %r != %r" % (path, old, new))
            else:
                self.number(where, kind, path, float(old), float(new))
        elif isinstance(old, list):
            if not isinstance(new, list) or len(old) != len(new):
                self.problem(where, "%s: %r != %r" % (path, old, new))
                return
            for i, (o, n) in enumerate(zip(old, new)):
                # Matrices keep their element index (a..d and tx, ty differ in precision); else [].
                index = "[%d]" % i if path.endswith("atrix") or path.endswith("coalesced[]") else "[]"
                self.value(where, kind, path + index, o, n)
        elif isinstance(old, dict):
            if not isinstance(new, dict):
                self.problem(where, "%s: %r != %r" % (path, old, new))
                return
            self.object(where, kind, path, old, new)

    def object(self, where, kind, path, old, new):
        prefix = path + "." if path else ""
        missing = [k for k in old if k not in new]
        if path.endswith("touches[]") and kind == "touches" and set(missing) == {"mmX", "mmY"}:
            if old["mmX"] == old["x"] and old["mmY"] == old["y"]:
                self.dropped += 1
                missing = []
            else:
                self.problem(where, "%smmX/mmY left out but differed from x/y" % prefix)
        if missing:
            self.problem(where, "%s keys missing in new: %s" % (path or "message", missing))
        extra = [k for k in new if k not in old]
        if extra:
            self.problem(where, "%s keys only in new: %s" % (path or "message", extra))
        if [k for k in old if k in new] != [k for k in new if k in old]:
            self.problem(where, "%s keys in another order" % (path or "message"))
        for key in old:
            if key in new:
                self.value(where, kind, prefix + key, old[key], new[key])

    def line(self, where, old_line, new_line):
        self.lines += 1
        try:
            old, new = json.loads(old_line), json.loads(new_line)
        except ValueError:
            if old_line != new_line:
                self.problem(where, "not JSON and different")
            return
        if not isinstance(old, dict) or not isinstance(new, dict):
            if old != new:
                self.problem(where, "different")
            return
        message_old, message_new = old, new
        if "message" in old and "client" in old:  # replay --regions: {"client":N,"message":{...}}
            message_old, message_new = old["message"], new.get("message", {})
            if old.get("client") != new.get("client"):
                self.problem(where, "client %r != %r" % (old.get("client"), new.get("client")))
        kind = message_old.get("type", "")
        if kind != message_new.get("type"):
            self.problem(where, "type %r != %r" % (kind, message_new.get("type")))
            return
        self.object(where, kind, "", message_old, message_new)
        self.check_text(where, kind, new_line)

    def check_text(self, where, kind, new_line):
        """Fixed-precision numbers are written with at most their step's decimals (checked on the text,
        since json.loads forgets it): walk NEW's numbers with their paths."""
        decoder = json.JSONDecoder(parse_float=lambda text: Text(text), parse_int=lambda text: Text(text))
        message = decoder.decode(new_line)
        if "message" in message and "client" in message:
            message = message["message"]
        self.walk(where, kind, "", message)

    def walk(self, where, kind, path, value):
        if isinstance(value, dict):
            for key, item in value.items():
                self.walk(where, kind, (path + "." if path else "") + key, item)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                index = "[%d]" % i if path.endswith("atrix") or path.endswith("coalesced[]") else "[]"
                self.walk(where, kind, path + index, item)
        elif isinstance(value, Text):
            step = self.step(kind, path)
            match = NUMBER.fullmatch(value)
            if step is not None and match and match.group(1):
                allowed = {THREE: 3, SIX: 6}[step]
                if len(match.group(1)) > allowed or "e" in value.lower():
                    self.problem(where, "%s: %s has more decimals than its step %g" % (path, value, step))


class Text(str):
    """A JSON number's text, as the decoder saw it."""


def read_lines(path):
    with open(path, "r", encoding="utf-8", errors="surrogateescape") as f:
        return f.read().split("\n")


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().split("\n\n")[1])
        return 2
    old_dir, new_dir = argv[1], argv[2]
    c = Comparison()
    old_names, new_names = sorted(os.listdir(old_dir)), sorted(os.listdir(new_dir))
    for name in sorted(set(old_names) ^ set(new_names)):
        c.problem(name, "only in %s" % (old_dir if name in old_names else new_dir))
    for name in sorted(set(old_names) & set(new_names)):
        c.files += 1
        old_lines = read_lines(os.path.join(old_dir, name))
        new_lines = read_lines(os.path.join(new_dir, name))
        if not name.endswith(".jsonl"):
            if old_lines != new_lines:
                c.problem(name, "differs (not a JSON lines file)")
            continue
        if len(old_lines) != len(new_lines):
            c.problem(name, "%d lines, now %d" % (len(old_lines), len(new_lines)))
            continue
        for number, (o, n) in enumerate(zip(old_lines, new_lines), 1):
            if o == "" and n == "":
                continue
            c.line("%s:%d" % (name, number), o, n)
    for p in c.problems[:20]:
        print("DIFFERENCE " + p)
    if len(c.problems) > 20:
        print("... %d more differences" % (len(c.problems) - 20))
    print("files %d, JSON lines %d, numbers compared %d (%d fixed-precision), mmX/mmY pairs left out %d" % (
        c.files, c.lines, c.numbers, c.fixed, c.dropped))
    print("largest difference per field (fields that differ anywhere; step in parentheses):")
    for field in sorted(c.max_difference):
        if c.max_difference[field] > 0:
            kind, path = field.split(".", 1)
            step = c.step(kind, path)
            print("  %-44s %.3g (%s)" % (field, c.max_difference[field], "exact" if step is None else "%g" % step))
    print("%d differences" % len(c.problems))
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
