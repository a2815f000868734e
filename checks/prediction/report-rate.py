#!/usr/bin/env python3
"""Report rate kept (issue 30 item 3): the per-contact update rate a client receives equals the device's.

    python3 checks/prediction/report-rate.py MULTITOUCHCTL PATH... [--predict-ms H] [--frame-period-us P]
    python3 checks/prediction/report-rate.py --self-test

For every recording in the PATHs (directories with their sub-folders; an events-only evemu file takes
the .desc whose name is the longest prefix of its own, as `multitouchctl check DIR` pairs them), it
replays three times on the offline path, which prints exactly what a client receives
(`multitouchctl replay --json`):

- plain: the device's own updates: every `touches` entry of a contact (moved or stationary) is one;
- with `--predict-ms H`: a predicting client's updates: its `touches` entries;
- with `--predict-ms H --frame-period-us P`: a frame-aligned predicting client's updates: the raw
  samples each frame hands over as `coalesced`.

It fails (exit 1) when a contact receives fewer updates, or other sample times, than the device made in
either client mode, and prints a Markdown table per recording: the per-contact minimum rate (Hz, over
contacts down 100 ms or more; Windows' touch certification judges the minimum, not the mean) of the
device and of each client, and the frame-aligned client's message rate beside it.
"""
import json
import os
import subprocess
import sys

MIN_DURATION = 0.1  # s: shorter contacts (taps) have no meaningful rate


def recordings(paths):
    """(recording, description or None) for every recording under `paths`, sorted."""
    found = []
    for path in paths:
        if os.path.isdir(path):
            files = sorted(os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs)
        elif os.path.exists(path):
            files = [path]
        else:
            sys.exit(f"report-rate: {path}: no such file or directory")
        for f in files:
            if f.endswith((".evemu", ".yml", ".yaml")):
                found.append((f, None))
            elif f.endswith(".events"):
                with open(f, errors="replace") as stream:
                    described = any(line.startswith("N:") for line in stream)
                desc = None
                if not described:
                    folder = os.path.dirname(f)
                    for d in sorted(os.listdir(folder)):
                        stem = os.path.join(folder, d[: -len(".desc")])
                        if d.endswith(".desc") and f.startswith(stem) and (desc is None or len(d) > len(os.path.basename(desc))):
                            desc = os.path.join(folder, d)
                found.append((f, desc))
    return found


def replay(ctl, recording, desc, *options):
    command = [ctl, "replay", "--json", *options, recording] + (["--desc", desc] if desc else [])
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: exit {result.returncode}: {result.stderr.strip()}")
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def updates(messages, coalesced=False):
    """Per contact (device, id): the sample times it was updated at, and the message times it came in."""
    samples = {}
    arrivals = {}
    for m in messages:
        if m.get("type") != "touches":
            continue
        for t in m.get("touches", []):
            key = (m["device"], t["id"])
            arrivals.setdefault(key, []).append(m["time"])
            if coalesced:
                samples.setdefault(key, []).extend(s[2] for s in t.get("coalesced", []))
            else:
                samples.setdefault(key, []).append(m["time"])
    return samples, arrivals


def rate(times):
    """Updates per second over a contact's life; None for a contact shorter than MIN_DURATION."""
    if len(times) < 2 or times[-1] - times[0] < MIN_DURATION:
        return None
    return (len(times) - 1) / (times[-1] - times[0])


def shortfalls(device, received):
    """Contacts of `device` that `received` misses samples of (fewer, or at other times)."""
    return sorted(key for key, times in device.items() if sorted(received.get(key, [])) != sorted(times))


def minimum(per_contact):
    rates = [r for r in (rate(sorted(t)) for t in per_contact.values()) if r is not None]
    return min(rates) if rates else None


def self_test():
    """The counting and the verdict on a stream with a dropped sample: the check can fail."""
    device = [{"type": "touches", "device": 1, "time": t / 100, "touches": [{"id": 7}]} for t in range(30)]
    full = [{"type": "touches", "device": 1, "time": 0.3, "touches": [{"id": 7, "coalesced": [[0, 0, t / 100] for t in range(30)]}]}]
    dropped = [{"type": "touches", "device": 1, "time": 0.3, "touches": [{"id": 7, "coalesced": [[0, 0, t / 100] for t in range(29)]}]}]
    d, _ = updates(device)
    assert abs(minimum(d) - 100) < 1e-6, minimum(d)
    assert shortfalls(d, updates(full, coalesced=True)[0]) == []
    assert shortfalls(d, updates(dropped, coalesced=True)[0]) == [(1, 7)]
    assert shortfalls(d, updates(device[:-1])[0]) == [(1, 7)]
    print("report-rate self-test: ok")


def main(argv):
    if argv == ["--self-test"]:
        self_test()
        return 0
    horizon, period = "16", "16667"
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--predict-ms":
            horizon, i = argv[i + 1], i + 2
        elif argv[i] == "--frame-period-us":
            period, i = argv[i + 1], i + 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) < 2:
        sys.exit(__doc__)
    ctl, paths = args[0], args[1:]
    failures = []
    print(f"Per-contact minimum update rate, Hz (contacts down {MIN_DURATION * 1000:.0f} ms or more); "
          f"clients with --predict-ms {horizon}, frame-aligned with --frame-period-us {period}:")
    print()
    print("| recording | contacts | timed | device | predicting client | frame-aligned client (coalesced) "
          "| frame-aligned messages | short |")
    print("|---|---|---|---|---|---|---|---|")
    count = 0
    for recording, desc in recordings(paths):
        device, _ = updates(replay(ctl, recording, desc))
        if not device:
            continue
        count += 1
        predicting, _ = updates(replay(ctl, recording, desc, "--predict-ms", horizon))
        framed, arrivals = updates(
            replay(ctl, recording, desc, "--predict-ms", horizon, "--frame-period-us", period), coalesced=True)
        short = sorted(set(shortfalls(device, predicting)) | set(shortfalls(device, framed)))
        timed = sum(1 for t in device.values() if rate(sorted(t)) is not None)

        def cell(v):
            return "-" if v is None else f"{v:.1f}"

        print(f"| {os.path.basename(recording)} | {len(device)} | {timed} | {cell(minimum(device))} | "
              f"{cell(minimum(predicting))} | {cell(minimum(framed))} | {cell(minimum(arrivals))} | {len(short)} |")
        failures += [(recording, key) for key in short]
    print()
    print(f"report-rate: {count} recordings, {len(failures)} contacts short of the device's updates")
    for recording, (device, touch) in failures:
        print(f"report-rate: FAIL {recording}: device {device} touch {touch} received fewer or other updates",
              file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
