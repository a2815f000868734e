#!/usr/bin/env python3
"""Checks protocol/multitouchd.schema.json against the one protocol definition, the Swift types.

    python3 protocol/check-golden.py

The Swift tests (WireProtocolTests) keep checks/protocol/golden/{messages,requests}/TYPE.jsonl equal to
what the encoder writes, one file per MessageKind and RequestKind case. This script closes the loop
to the schema, so a new message, request, field or enum value cannot reach a release undescribed:

1. Every golden file's type has a `message.TYPE` / `request.TYPE` definition, every definition has a
   golden file, and the `message` / `request` unions refer to exactly those definitions.
2. Every golden line has its file's type and validates against the schema (validate.py's Checker).
3. The schema's enums equal the raw values of the Swift enums they come from (read from the sources:
   a golden file holds one sample, not every gesture mode or drop unit).

Prints one line per problem and a summary; exits 1 on any problem, 2 without python3-jsonschema.
"""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
GOLDEN = os.path.join(ROOT, "checks", "protocol", "golden")
sys.path.insert(0, HERE)
import validate  # noqa: E402

# Schema enum (a path under $defs) -> the Swift enum whose raw values it must list, and its file.
ENUMS = [
    ("message.gesture/properties/mode", "GestureMode", "Sources/TouchVocabulary/GestureEvents.swift"),
    ("message.gesture/properties/phase", "GesturePhase", "Sources/TouchVocabulary/GestureEvents.swift"),
    ("message.longPress/properties/phase", "LongPressPhase", "Sources/TouchVocabulary/GestureEvents.swift"),
    ("touch/properties/phase", "TouchPhase", "Sources/TouchVocabulary/Touch.swift"),
    ("touch/properties/type", "TouchType", "Sources/TouchVocabulary/Touch.swift"),
    ("device/properties/protocol", "MultitouchProtocol", "Sources/TouchVocabulary/DeviceTerms.swift"),
    ("message.dropped/properties/unit", "DropUnit", "Sources/WireProtocol/NoticeMessages.swift"),
    ("message.subscribed/properties/streams/items", "MessageStream", "Sources/WireProtocol/MessageStream.swift"),
    ("request.subscribe/properties/streams/items", "MessageStream", "Sources/WireProtocol/MessageStream.swift"),
    ("region/properties/mode", "RegionMode", "Sources/TouchVocabulary/Region.swift"),
    ("message.touches/properties/role", "RoutingRole", "Sources/TouchVocabulary/RoutingTerms.swift"),
    ("message.touches/properties/reason", "RoutingCancelReason", "Sources/TouchVocabulary/RoutingTerms.swift"),
]
ERROR_CODES = ("message.error/properties/code", "Sources/WireProtocol/ErrorCode.swift")

problems = []


def problem(what):
    print("FAILED " + what)
    problems.append(what)


def swift_enum(name, path):
    """Raw values of `enum NAME: String` in the Swift file: its top-level `case` lines, `case a, b` or
    `case a = "raw"`."""
    with open(os.path.join(ROOT, path)) as f:
        text = f.read()
    found = re.search(r"^public enum %s: String\b[^{]*\{\n(.*?)^\}" % name, text, re.S | re.M)
    if not found:
        problem("%s: no `public enum %s: String` (moved? update ENUMS in %s)" % (path, name, __file__))
        return []
    values = []
    for line in found.group(1).splitlines():
        case = re.match(r"^    case (.+)$", line)
        if not case:
            continue
        for item in case.group(1).split(","):
            item = item.strip()
            raw = re.match(r'^(\w+)\s*=\s*"([^"]*)"$', item)
            values.append(raw.group(2) if raw else item)
    return values


def swift_error_codes(path):
    with open(os.path.join(ROOT, path)) as f:
        return re.findall(r'static let \w+ = ErrorCode\(rawValue: "([^"]+)"\)', f.read())


def schema_at(schema, path):
    node = schema["$defs"]
    for part in path.split("/"):
        node = node[part]
    return node


def golden(kind):
    directory = os.path.join(GOLDEN, kind)
    return {name[: -len(".jsonl")]: os.path.join(directory, name)
            for name in sorted(os.listdir(directory)) if name.endswith(".jsonl")}


def main():
    try:
        checker = validate.Checker()
    except ImportError:
        print("check-golden: the jsonschema module is missing (apt-get install python3-jsonschema)", file=sys.stderr)
        return 2
    schema = checker.schema
    lines = 0
    for kind, directory in (("message", "messages"), ("request", "requests")):
        files = golden(directory)
        defined = {name[len(kind) + 1:] for name in schema["$defs"] if name.startswith(kind + ".")}
        union = {ref["$ref"].rsplit("/", 1)[-1][len(kind) + 1:] for ref in schema["$defs"][kind]["oneOf"]}
        for name in sorted(set(files) - defined):
            problem("%s %s: a golden file (the Swift protocol has it) but no $defs/%s.%s in the schema"
                    % (kind, name, kind, name))
        for name in sorted(defined - set(files)):
            problem("%s %s: defined in the schema but no golden file %s/%s.jsonl (the Swift protocol lacks it)"
                    % (kind, name, directory, name))
        if union != defined:
            problem("$defs/%s.oneOf refers to %s, the definitions are %s" % (kind, sorted(union), sorted(defined)))
        for name, path in files.items():
            with open(path, "rb") as f:
                for number, line in enumerate(f.read().split(b"\n"), 1):
                    if not line:
                        continue
                    lines += 1
                    where = "%s/%s.jsonl:%d" % (directory, name, number)
                    try:
                        obj = json.loads(line)
                    except ValueError as error:
                        problem("%s: not JSON: %s" % (where, error))
                        continue
                    if not isinstance(obj, dict) or obj.get("type") != name:
                        problem("%s: type %r in a file named %s" % (where, obj.get("type") if isinstance(obj, dict) else obj, name))
                    try:
                        found = checker.problems(obj, kind)
                    except Exception as error:  # a dangling $ref: the schema itself is broken
                        found = ["the schema cannot be applied: %s" % str(error).split(" within ")[0][:200]]
                    for what in found:
                        problem("%s: %s" % (where, what))
        print("ok     %d %s types: golden files and schema definitions agree" % (len(files), kind))

    for path, name, source in ENUMS:
        listed = schema_at(schema, path)["enum"]
        swift = swift_enum(name, source)
        if sorted(listed) != sorted(swift):
            problem("$defs/%s lists %s; Swift's %s (%s) has %s" % (path, listed, name, source, swift))
        else:
            print("ok     $defs/%s = %s" % (path, name))
    path, source = ERROR_CODES
    listed = schema_at(schema, path)["enum"]
    swift = swift_error_codes(source)
    if sorted(listed) != sorted(swift):
        problem("$defs/%s lists %s; %s defines %s" % (path, listed, source, swift))
    else:
        print("ok     $defs/%s = ErrorCode" % path)
    print("check-golden: %d golden lines, %d problems" % (lines, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
