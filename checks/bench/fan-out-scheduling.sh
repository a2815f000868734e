#!/usr/bin/env bash
# Fan-out latency under the scheduling policies the unit could choose (docs/PERFORMANCE.md "Fan-out and
# the unit's scheduling"): clients/python/bench_server.py with 8 and 64 clients under default
# scheduling, nice -10 and SCHED_FIFO 10 (chrt -f 10), the six variants interleaved, ROUNDS rounds
# (default 3), then per variant the medians (min-max) of p50/p99 (device read -> last client write, the
# daemon's own stats) and of the daemon's CPU per frame, with the load during the runs.
#
# usage: checks/bench/fan-out-scheduling.sh [--rounds N] [BIN_DIR]   (root: nice -10 and SCHED_FIFO)
#   BIN_DIR holds the multitouchd to measure (default: the release build, built if missing).
set -uo pipefail
cd "$(dirname "$0")/../.."
rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=${2:?--rounds N}; shift ;;
    *) bin=$1 ;;
  esac
  shift
done
if [ -z "${bin:-}" ]; then
  swift build -c release --product multitouchd >&2 || exit 2
  bin=$(swift build -c release --show-bin-path)
fi
[ "$(id -u)" = 0 ] || { echo "fan-out-scheduling: must run as root (nice -10, SCHED_FIFO)" >&2; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for round in $(seq "$rounds"); do
  for clients in 8 64; do
    for mode in default nice-10 fifo-10; do
      case $mode in default) opt=() ;; nice-10) opt=(--nice -10) ;; fifo-10) opt=(--realtime) ;; esac
      echo "=== $clients $mode load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$log" >&2
      python3 clients/python/bench_server.py "$bin" --clients "$clients" --idle-seconds 1 "${opt[@]}" >> "$log" 2>&1
    done
  done
done
python3 - "$log" <<'PY'
import re, statistics, sys
runs, current = {}, None
for line in open(sys.argv[1]):
    m = re.match(r"=== (\d+) (\S+) load (\S+)", line)
    if m:
        current = {"load": float(m[3])}
        runs.setdefault((int(m[1]), m[2]), []).append(current)
        continue
    m = re.search(r"p50 ([\d.]+) us, p99 ([\d.]+) us", line)
    if m and current is not None:
        current.update(p50=float(m[1]), p99=float(m[2]))
    m = re.search(r"([\d.]+) us per frame, ([\d.]+) us per frame per client", line)
    if m and current is not None:
        current.update(cpu=float(m[1]), per_client=float(m[2]))
print("fan-out: %d round(s), variants interleaved; medians (min-max)" % max(len(v) for v in runs.values()))
print("%-8s %-8s %-26s %-26s %-24s %s" % ("clients", "sched", "p50 us", "p99 us", "CPU us/frame", "load"))
failed = False
for (clients, mode), rows in sorted(runs.items()):
    rows = [r for r in rows if "p99" in r]
    if not rows:
        print("%-8d %-8s no result" % (clients, mode)); failed = True; continue
    cell = lambda k: "%.0f (%.0f-%.0f)" % (statistics.median(r[k] for r in rows), min(r[k] for r in rows), max(r[k] for r in rows))
    print("%-8d %-8s %-26s %-26s %-24s %s" % (clients, mode, cell("p50"), cell("p99"), cell("cpu"),
                                             "%.1f-%.1f" % (min(r["load"] for r in rows), max(r["load"] for r in rows))))
sys.exit(1 if failed else 0)
PY
