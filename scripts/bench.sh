#!/usr/bin/env bash
# The benchmark suite (issue 13; figures in docs/PERFORMANCE.md). Timing lives here, never in tests.
#
# usage: scripts/bench.sh [--short] [RECORDING-OR-DIR...]
#   default recordings: the generated fingers-1/2/5/10 and churn, checks/fixtures/touchscreen-pinch-rotate.evemu
#   and ../shared/recordings (when present).
#
# 1. `multitouchctl bench`: pipeline events/s and pipeline + JSON events/s, median (min-max) of 5 runs.
# 2. valgrind --tool=callgrind, counting only the measured loop (counters zeroed before
#    benchmarkBody, dumped after it: --toggle-collect would count the calls made outside it too):
#    instructions per event for the pipeline and for pipeline + JSON, and malloc calls per frame on
#    that hot path (repeatable on a noisy machine).
# 2b. `bench --frame-path` with checks/bench/malloc-count.c preloaded: the daemon's frame path, device
#    read to socket write, 1 and 8 clients, plain, predicting 16 ms and routed: ns and heap allocations
#    per frame (checks/bench/allocations.sh is the CI check that the plain path allocates nothing).
# 3. clients/python/bench_server.py: the daemon serving a replay to 1, 8 and 64 clients: latency p50/p99
#    and daemon CPU per frame and per frame and client, RSS.
#    Full runs also serve 64 clients (the script raises max_clients for its `stats` connection).
# --short (CI): debug binaries as built by the test stage, 20,000 events, 1 run, callgrind over 2,000
# events of fingers-2, 300 daemon frames; it checks that every part runs and reports, with no timing threshold.
# Needs: valgrind (stage 2 is skipped with a note without it), python3.
set -uo pipefail
cd "$(dirname "$0")/.."

short=0
if [ "${1:-}" = --short ]; then short=1; shift; fi
if [ "$short" = 1 ]; then
  bin=$(swift build --show-bin-path)
  [ -x "$bin/multitouchctl" ] && [ -x "$bin/multitouchd" ] || swift build --product multitouchctl >&2 && swift build --product multitouchd >&2
  events=20000 runs=1 cg_events=2000 frames=300 clients_list="1"
else
  swift build -c release --product multitouchctl >&2 && swift build -c release --product multitouchd >&2 || exit 2
  bin=$(swift build -c release --show-bin-path)
  events=2000000 runs=5 cg_events=200000 frames=6000 clients_list="1 8 64"
fi
ctl=$bin/multitouchctl
recordings=("$@")
if [ ${#recordings[@]} -eq 0 ]; then
  recordings=(checks/fixtures/touchscreen-pinch-rotate.evemu)
  [ "$short" = 0 ] && [ -d ../shared/recordings ] && recordings+=(../shared/recordings)
fi
work=$(mktemp -d /tmp/multitouchd-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== 1. throughput: $ctl bench --generated ${recordings[*]} --events $events --runs $runs"
"$ctl" bench --generated "${recordings[@]}" --events "$events" --runs "$runs" || status=1

echo "== 2. instructions and allocations (callgrind, measured loop only)"
if command -v valgrind > /dev/null && command -v callgrind_annotate > /dev/null; then
  # valgrind 3.19 (Debian 12) cannot read the DWARF 5 the Swift toolchain writes: strip the debug
  # sections from a copy (the symbol table stays, so function names and the toggle still work).
  objcopy --strip-debug "$ctl" "$work/multitouchctl"
  # The measured loop's symbol (not its default argument's generator, which is called first).
  body=$(nm "$work/multitouchctl" | awk '{print $3}' | grep 'BenchV13benchmarkBody' | grep -v 'fA[0-9]*_$' | head -1)
  "$ctl" bench --save "$work/gen" > /dev/null || status=1
  files=("$work"/gen/*.evemu)
  for r in "${recordings[@]}"; do
    if [ -d "$r" ]; then files+=("$r"/*.evemu); else files+=("$r"); fi
  done
  [ "$short" = 1 ] && files=("$work/gen/fingers-2.evemu")   # a debug build under valgrind is slow
  printf '%-44s %14s %14s %14s %16s\n' recording "pipeline Ir/ev" "+json Ir/ev" "json Ir/ev" "mallocs/frame p/+j"
  for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    line=$(basename "$f")
    cells=()
    for part in pipeline json; do
      out="$work/cg.$part.out"
      rm -f "$out" "$out".*
      log=$(valgrind --tool=callgrind --callgrind-out-file="$out" --zero-before="$body" --dump-after="$body" \
        "$work/multitouchctl" bench "$f" --events "$cg_events" --runs 1 --only "$part" 2>&1) || { status=1; continue; }
      ir=$(sed -n 's/^\(summary\|totals\): *\([0-9]*\).*/\2/p' "$out.1" | head -1)
      ev=$(echo "$log" | sed -n 's/.*: \([0-9]*\) events, \([0-9]*\) frames.*/\1 \2/p')
      mallocs=$(python3 - "$out.1" <<'EOF'
import re, sys
names, calls, current = {}, 0, None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line)
    if m:
        if m.group(2): names[m.group(1)] = m.group(2).strip()
        if line.startswith("cfn="): current = names.get(m.group(1), "")
        continue
    if line.startswith("calls=") and current in ("malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign"):
        calls += int(line.split("=")[1].split()[0])
print(calls)
EOF
)
      cells+=("$ir ${ev:-0 0} $mallocs")
    done
    python3 - "$line" "${cells[@]}" <<'EOF'
import sys
name = sys.argv[1]
rows = [c.split() for c in sys.argv[2:]]
if len(rows) != 2 or any(len(r) != 4 for r in rows):
    print("%-44s (callgrind failed)" % name); sys.exit(0)
(pi, pe, pf, pm), (ji, je, jf, jm) = [[int(x) for x in r] for r in rows]
print("%-44s %14.0f %14.0f %14.0f %9.2f/%.2f" % (name, pi / pe, ji / je, (ji / je) - (pi / pe), pm / max(1, pf), jm / max(1, jf)))
EOF
  done
else
  echo "valgrind not installed: instruction and allocation counts skipped (apt-get install valgrind)"
fi

echo "== 2b. the frame path: allocations and ns per frame (bench --frame-path, malloc counter preloaded)"
if cc -shared -fPIC -O2 -o "$work/malloc-count.so" checks/bench/malloc-count.c; then
  "$ctl" bench --save "$work/gen" > /dev/null || status=1
  frame_inputs=(--generated)
  [ "$short" = 1 ] && frame_inputs=("$work/gen/fingers-10.evemu")   # a debug build: one recording
  LD_PRELOAD=$work/malloc-count.so "$ctl" bench --frame-path "${frame_inputs[@]}" --clients 1,8 --predict-ms 16 \
    --routed --runs "$runs" || status=1
else
  echo "no C compiler: the frame path's allocations are not counted"; status=1
fi

echo "== 3. the daemon: python3 clients/python/bench_server.py $bin --frames $frames --clients N"
for n in $clients_list; do
  python3 clients/python/bench_server.py "$bin" --frames "$frames" --clients "$n" --idle-seconds 1 || status=1
done
exit $status
