#!/usr/bin/env python3
"""Validates protocol lines against protocol/multitouchd.schema.json.

    python3 protocol/validate.py [--requests] FILE|- ...

Each line of each file (JSON lines: `multitouchctl replay --json` output, a captured session, golden
files) must be a valid server message (or, with --requests, a valid request). Prints one line per
invalid line (file:line: type: what is wrong) and a summary; exits 1 when any line is invalid, 2 when
the jsonschema module is missing (Debian: apt-get install python3-jsonschema; PyPI: jsonschema).

This is the hook for checks in other languages: a Swift test that writes golden files from the
typed protocol can run this script over them, so the schema and the Swift definition cannot drift.
Python code imports `load()` and `Checker` instead.
"""

import json
import os
import sys

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "multitouchd.schema.json")


def load():
    with open(SCHEMA_PATH) as f:
        return json.load(f)


class Checker:
    """Validates message and request dicts; `problems(obj)` returns a list of readable strings."""

    def __init__(self, schema=None):
        import jsonschema  # imported here so a missing module is reported by the caller, not at import

        self.schema = schema if schema is not None else load()
        cls = jsonschema.validators.validator_for(self.schema)
        cls.check_schema(self.schema)
        self._cls = cls
        self._validators = {}
        # The unions ("message", "request") are oneOf over one definition per type. When every
        # alternative requires `type` and pins it to a constant of its own, a line valid against the
        # definition of its type matches exactly that alternative, so the union holds without being
        # evaluated again per line (evaluating it was three quarters of the time over 25,000 lines).
        # kind -> the union's type constants; False when the union is not of that shape.
        self._discriminated = {kind: self._discriminated_union(kind) for kind in ("message", "request")}

    def _discriminated_union(self, kind):
        union = self.schema["$defs"].get(kind, {})
        alternatives = union.get("oneOf")
        if not alternatives or set(union) - {"description", "oneOf"}:
            return False
        constants = []
        for alternative in alternatives:
            ref = alternative.get("$ref", "") if set(alternative) == {"$ref"} else ""
            if not ref.startswith("#/$defs/"):
                return False
            definition = self.schema["$defs"].get(ref[len("#/$defs/"):], {})
            pinned = definition.get("properties", {}).get("type", {})
            if "type" not in definition.get("required", []) or "const" not in pinned:
                return False
            if ref != "#/$defs/%s.%s" % (kind, pinned["const"]):
                return False
            constants.append(pinned["const"])
        return set(constants) if len(constants) == len(set(constants)) else False

    def _validator(self, definition):
        if definition not in self._validators:
            sub = dict(self.schema, **{"$ref": "#/$defs/" + definition})
            sub.pop("oneOf", None)
            self._validators[definition] = self._cls(sub)
        return self._validators[definition]

    def problems(self, obj, kind="message"):
        """kind: "message" (server to client) or "request". Validates against the definition of the
        object's type (clear errors), then against the union (the type must be one we know)."""
        name = obj.get("type") if isinstance(obj, dict) else None
        definition = "%s.%s" % (kind, name)
        if not isinstance(name, str) or definition not in self.schema["$defs"]:
            return ["unknown %s type %r" % (kind, name)]
        found = ["%s: %s" % ("/".join(map(str, e.absolute_path)) or "(top)", e.message)
                 for e in self._validator(definition).iter_errors(obj)]
        union_types = self._discriminated.get(kind, False)
        if not found and union_types is not False and name not in union_types:
            found = ["%s type %r is defined but not one of the %s union's" % (kind, name, kind)]
        elif not found and union_types is False:
            found = [e.message for e in self._validator(kind).iter_errors(obj)]
        return found

    def check(self, obj, kind="message"):
        found = self.problems(obj, kind)
        if found:
            raise AssertionError("%s does not match the schema: %s; %s" % (kind, "; ".join(found), json.dumps(obj)[:300]))


def main(argv):
    kind = "message"
    if argv and argv[0] == "--requests":
        kind = "request"
        argv = argv[1:]
    if not argv:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        checker = Checker()
    except ImportError:
        print("validate.py: the jsonschema module is missing (apt-get install python3-jsonschema)", file=sys.stderr)
        return 2
    lines = bad = 0
    for path in argv:
        stream = sys.stdin if path == "-" else open(path, encoding="utf-8")
        with stream:
            for number, line in enumerate(stream, 1):
                if not line.strip():
                    continue
                lines += 1
                try:
                    obj = json.loads(line)
                    found = checker.problems(obj, kind)
                except ValueError as error:
                    found = ["not JSON: %s" % error]
                if found:
                    bad += 1
                    print("%s:%d: %s" % (path, number, "; ".join(found)))
    print("validate: %d lines, %d invalid" % (lines, bad))
    return 1 if bad or not lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
