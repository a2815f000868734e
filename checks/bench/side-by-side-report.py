#!/usr/bin/env python3
"""The side-by-side benchmark's table (checks/bench/side-by-side.sh): reads WORK/run-*/NAME.txt (one
file per recording and guest run, written by side-by-side-guest.sh) and prints, per recording, the
median over the runs and [min-max] of: CPU per evdev event of each reader, the ratios multitouchd /
libinput and multitouchd / floor (taken within each run, then the median), and the latency kernel event
time -> receipt p50/p99 of the floor, of libinput in-process and of the multitouchd client, with the
ratio client p50 / libinput p50 (within each run).

    side-by-side-report.py WORK [--runs-table]     exit status 1 when a run is incomplete
"""

import glob
import os
import statistics
import sys

READERS = ["floor", "debug-events", "multitouchd", "client", "inproc"]  # the order of cpu_before/after


def parse(path):
    fields = {}
    for line in open(path):
        p = line.split()
        if p:
            fields[p[0]] = p[1:]
    pairs = lambda key: dict(zip(fields.get(key, [])[0::2], fields.get(key, [])[1::2]))
    before = [int(x) for x in fields["cpu_before"]]
    after = [int(x) for x in fields["cpu_after"]]
    floor, client, inproc = pairs("floor"), pairs("client"), pairs("inproc")
    events = int(floor["events"])
    cpu = {name: (a - b) / max(1, events) for name, a, b in zip(READERS, after, before)}
    row = {
        "events": events,
        "frames": int(floor["frames"]),
        "client_frames": int(client.get("frames", 0)),
        "gestures": int(fields.get("client_gestures", ["0"])[0]),
        "libinput_events": int(inproc["events"]),
        "sched": " ".join(fields.get("daemon_sched", ["?"])),
        **{"cpu_" + k: v for k, v in cpu.items()},
        "x_debug_events": cpu["multitouchd"] / max(1e-9, cpu["debug-events"]),
        "x_inproc": cpu["multitouchd"] / max(1e-9, cpu["inproc"]),
        "x_floor": cpu["multitouchd"] / max(1e-9, cpu["floor"]),
        "x_floor_with_client": (cpu["multitouchd"] + cpu["client"]) / max(1e-9, cpu["floor"]),
        "floor_p50": float(floor["p50_us"]), "floor_p99": float(floor["p99_us"]),
        "inproc_p50": float(inproc["p50_us"]), "inproc_p99": float(inproc["p99_us"]),
        "client_p50": float(client["p50_us"]), "client_p99": float(client["p99_us"]),
    }
    row["x_latency_p50"] = row["client_p50"] / max(1e-9, row["inproc_p50"])
    return row


def spread(values, fmt):
    values = sorted(values)
    return (fmt + " [" + fmt + "-" + fmt + "]") % (statistics.median(values), values[0], values[-1])


def main(argv):
    work = argv[1]
    runs = sorted(glob.glob(os.path.join(work, "run-*")))
    table, failed = {}, False
    for run in runs:
        for path in sorted(glob.glob(os.path.join(run, "*.txt"))):
            name = os.path.basename(path)[:-4]
            try:
                row = parse(path)
                if row["events"] == 0 or row["client_frames"] == 0:
                    raise ValueError("no events or no client frames")
            except (KeyError, ValueError, IndexError) as e:
                print("%s %s: incomplete (%s): %s" % (os.path.basename(run), name, e, open(path).read()[:300]))
                failed = True
                continue
            table.setdefault(name, []).append(row)
            if "--runs-table" in argv:
                print("%s %-30s mtd %6.0f ns/ev  x debug-events %.2f  x inproc %.2f  x floor %.2f  latency p50 client %.0f"
                      " / libinput %.0f us (%.2fx)" % (os.path.basename(run), name, row["cpu_multitouchd"], row["x_debug_events"],
                                                    row["x_inproc"], row["x_floor"], row["client_p50"], row["inproc_p50"], row["x_latency_p50"]))
    print("side-by-side: %d guest run(s); per recording the median over the runs [min-max]; ratios taken within each run" % len(runs))
    for name, rows in sorted(table.items()):
        col = lambda key: [r[key] for r in rows]
        r0 = rows[0]
        print("\n%s: %d runs, %d evdev events, %d frames per play; client: %d touches messages, %d gesture messages; libinput: %d events;"
              " multitouchd scheduling: %s" % (name, len(rows), r0["events"], r0["frames"], r0["client_frames"], r0["gestures"],
                                              r0["libinput_events"], r0["sched"]))
        print("  CPU ns per evdev event: floor %s | libinput debug-events %s | libinput in-process %s | multitouchd %s | client %s"
              % tuple(spread(col("cpu_" + k), "%.0f") for k in ["floor", "debug-events", "inproc", "multitouchd", "client"]))
        print("  multitouchd / libinput debug-events %s | / libinput in-process %s | / floor %s | (+ client) / floor %s"
              % tuple(spread(col(k), "%.2f") for k in ["x_debug_events", "x_inproc", "x_floor", "x_floor_with_client"]))
        print("  latency p50/p99 us: floor %s / %s | libinput in-process %s / %s | multitouchd client %s / %s"
              % tuple(spread(col(k), "%.0f") for k in ["floor_p50", "floor_p99", "inproc_p50", "inproc_p99", "client_p50", "client_p99"]))
        print("  client p50 / libinput in-process p50 %s" % spread(col("x_latency_p50"), "%.2f"))
    return 1 if failed or not table else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
