#!/usr/bin/env bash
# The steady state allocates nothing (issue 32 item 6, docs/PERFORMANCE.md "A hot path that allocates
# nothing"): `multitouchctl bench --frame-path` runs the daemon's whole frame path (event loop, pipeline,
# publishing, client queues, socket writes) over the generated recordings (one to ten fingers moving in
# every frame, and churn: fingers landing, turning into palms and lifting) and the fixtures (taps, long
# presses, protocol A, a touchpad) with one and with eight clients, and counts heap allocations in the frames after two warm-up passes, through
# checks/bench/malloc-count.c preloaded. Fails when any measured frame allocates. A count, not a time:
# the same binary gives the same count on any machine, loaded or not.
#
# usage: checks/bench/allocations.sh [MULTITOUCHCTL]
#   default: the release build (swift build -c release --show-bin-path), built with `make build` when
#   missing. Debug builds allocate where the optimizer would not (closures, temporaries): the check
#   is about what ships.
set -uo pipefail
cd "$(dirname "$0")/../.."
ctl=${1:-}
if [ -z "$ctl" ]; then
  bin=$(swift build -c release --show-bin-path)
  [ -x "$bin/multitouchctl" ] || make -s build >&2 || exit 2
  ctl=$bin/multitouchctl
fi
work=$(mktemp -d /tmp/multitouchd-allocations.XXXXXX)
trap 'rm -rf "$work"' EXIT
cc -shared -fPIC -O2 -Wall -o "$work/malloc-count.so" checks/bench/malloc-count.c || exit 2
LD_PRELOAD=$work/malloc-count.so "$ctl" bench --frame-path --generated checks/fixtures --clients 1,8 --runs 1 --fail-on-allocation
