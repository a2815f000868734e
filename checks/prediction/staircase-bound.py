#!/usr/bin/env python3
"""How well any predictor could do on the scripted slow sensors (docs/PREDICTION.md, issue 30).

The scripted slow sensors (`predict-report --scripted`) report a finger's path as a staircase: reports
at random 2-8 ms intervals, a new reading at every second or third report (drawn at random), the
reading held in between. Predicting what such a device will report H ms from now has two parts: the
finger's motion, and when the sensor will read. This script measures, on the same samples the report
scores (the class "touchscreen, repeated positions"), the error of predictors that know more than the
daemon can:

- future path: knows the sensor's random law exactly AND the finger's whole future path (only when the
  sensor will read is unknown): the floor of what the staircase alone leaves;
- present velocity: knows the sensor's random law exactly and the finger's true velocity over the
  last W ms before the newest reading (W = 4, 10, 20: the best is printed), and carries it on.

Each predicts the middle (geometric median) of 60 simulated futures of the staircase. The truth is the
report's: the device's own later positions, interpolated between reports. Usage:

    multitouchctl predict-report --scripted --dump-tracks /tmp/tracks.txt DIR > /dev/null
    python3 checks/prediction/staircase-bound.py /tmp/tracks.txt [--horizons 8,16,33]

The scripted paths are made again from the real touchscreen paths of the dump (ScriptedSensor's
SplitMix64 sequence, seeded as predict-report seeds it), to know the finger's path behind each one;
the script checks that they come out sample for sample as dumped. Deterministic (seeded); about a
minute. Not a CI stage: it documents a bound, it guards nothing.
"""
import argparse
import bisect
import math
import random
import sys

MASK = (1 << 64) - 1


class SplitMix64:
    """Sources/Prediction/ScriptedSensor.swift's generator."""

    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def between(self, lo, hi):
        return lo + self.next() % (hi - lo + 1)


def load(path):
    devices = []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("D\t"):
            _, name, group, kind, cls = line.split("\t")
            devices.append(dict(name=name, group=group, type=kind, cls=cls, tracks=[]))
        elif line.startswith("T\t"):
            track = []
            for sample in line[2:].split(";"):
                t, x, y = sample.split(",")
                track.append((int(t), float(x), float(y)))
            devices[-1]["tracks"].append(track)
    return devices


def position(track, times, t):
    """PredictionEvaluation.position: interpolated, None outside the track's life."""
    if t < track[0][0] or t > track[-1][0]:
        return None
    i = bisect.bisect_right(times, t) - 1
    if i >= len(track) - 1:
        return track[-1][1:]
    a, b = track[i], track[i + 1]
    if b[0] <= a[0]:
        return b[1:] if t >= b[0] else a[1:]
    f = (t - a[0]) / (b[0] - a[0])
    return (a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f)


def slow_sensor(track, seed):
    """ScriptedSensor.slowSensor."""
    times = [s[0] for s in track]
    rng = SplitMix64(seed)
    first, last = track[0], track[-1]
    if len(track) < 2 or last[0] <= first[0]:
        return None
    samples, held = [first], first[1:]
    until, t = rng.between(2, 3), first[0]
    while True:
        t += rng.between(2000, 8000)
        if t >= last[0]:
            break
        until -= 1
        if until == 0:
            held = position(track, times, t) or held
            until = rng.between(2, 3)
        samples.append((t,) + tuple(held))
    samples.append(last)
    return samples


def median(points):
    """Geometric median (Weiszfeld): the point of least mean distance."""
    x = sum(p[0] for p in points) / len(points)
    y = sum(p[1] for p in points) / len(points)
    for _ in range(30):
        wx = wy = ws = 0.0
        for p in points:
            d = max(math.hypot(p[0] - x, p[1] - y), 1e-9)
            wx, wy, ws = wx + p[0] / d, wy + p[1] / d, ws + 1 / d
        x, y = wx / ws, wy / ws
    return x, y


def futures(rng, now, reports_held, newest, horizon_us, reading_at, count=60):
    """The staircase at now + horizon in `count` futures drawn from the sensor's law, given how many
    reports the newest reading has been held; `reading_at(t)` is the position a reading at t takes."""
    out = []
    for _ in range(count):
        # Readings come every second or third report: after 0, 1 or 2 held reports, the next one
        # comes after 2 or 3, 1 or 2, or 1 more report.
        left = rng.choice([2, 3]) if reports_held == 0 else rng.choice([1, 2]) if reports_held == 1 else 1
        t, before, held = now, newest, newest
        while True:
            t2 = t + rng.randint(2000, 8000)
            left -= 1
            if left == 0:
                held = reading_at(t2)
                left = rng.choice([2, 3])
            if t2 >= now + horizon_us:
                f = (now + horizon_us - t) / (t2 - t)
                out.append((before[0] + (held[0] - before[0]) * f, before[1] + (held[1] - before[1]) * f))
                break
            before, t = held, t2
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tracks", help="predict-report --scripted --dump-tracks output")
    parser.add_argument("--horizons", default="8,16,33")
    parser.add_argument("--every", type=int, default=3, help="score every Nth sample (speed)")
    args = parser.parse_args()
    horizons = [int(h) for h in args.horizons.split(",")]
    devices = load(args.tracks)
    real = [d for d in devices if not d["name"].endswith("(scripted slow sensor)")]
    scripted = {d["name"]: d for d in devices if d["name"].endswith("(scripted slow sensor)")}
    pairs = []
    for index, device in enumerate(real):
        if device["type"] != "direct":
            continue
        variant = scripted.get(device["name"] + " (scripted slow sensor)")
        if variant is None or variant["cls"] != "touchscreen, repeated positions":
            continue
        made = [(t, slow_sensor(t, (index << 32) | i)) for i, t in enumerate(device["tracks"])]
        made = [(t, m) for t, m in made if m is not None]
        if [m for _, m in made] != variant["tracks"]:
            sys.exit("staircase-bound: %s: the scripted paths do not come out as dumped" % device["name"])
        pairs += made
    rng = random.Random(30)
    print("| H ms | n | none | future path known | present velocity known (window) |")
    print("|---|---|---|---|---|")
    for h in horizons:
        none = floor = 0.0
        present = {4: 0.0, 10: 0.0, 20: 0.0}
        n = 0
        for finger, track in pairs:
            times = [s[0] for s in track]
            finger_times = [s[0] for s in finger]
            held_reports, reading_time = 0, track[0][0]
            for i, sample in enumerate(track):
                if i > 0 and sample[1:] != track[i - 1][1:]:
                    held_reports, reading_time = 0, sample[0]
                elif i > 0:
                    held_reports += 1
                truth = position(track, times, sample[0] + h * 1000)
                if truth is None or i % args.every:
                    continue
                n += 1
                newest = sample[1:]
                none += math.hypot(newest[0] - truth[0], newest[1] - truth[1])

                def along_path(t):
                    p = position(finger, finger_times, t)
                    return p if p is not None else finger[-1][1:]

                g = median(futures(rng, sample[0], held_reports, newest, h * 1000, along_path))
                floor += math.hypot(g[0] - truth[0], g[1] - truth[1])
                for window in present:
                    a = position(finger, finger_times, max(finger[0][0], reading_time - window * 1000))
                    b = position(finger, finger_times, reading_time)
                    span = (reading_time - max(finger[0][0], reading_time - window * 1000)) / 1e6
                    v = ((b[0] - a[0]) / span, (b[1] - a[1]) / span) if span > 0 else (0.0, 0.0)

                    def carried(t, v=v):
                        tau = (t - reading_time) / 1e6
                        return (newest[0] + v[0] * tau, newest[1] + v[1] * tau)

                    g = median(futures(rng, sample[0], held_reports, newest, h * 1000, carried))
                    present[window] += math.hypot(g[0] - truth[0], g[1] - truth[1])
        best = min(present, key=present.get)
        print(
            "| %d | %d | %.3f | %.3f (%.3fx) | %.3f (%.3fx, %d ms) |"
            % (h, n, none / n, floor / n, floor / none, present[best] / n, present[best] / none, best)
        )


if __name__ == "__main__":
    main()
