#!/usr/bin/env bash
# Sets up multitouchd and shows it working with no touch hardware: builds it (release), starts the
# daemon serving a bundled recording (a map-style tour: pan, pinch, twist, 2->1->2 handoffs, double
# tap, long press) on a private socket, shows the gestures in a client (multitouchctl monitor), and
# ends by writing a plot of the recording it served (multitouchctl plot) and printing where it is.
#
#   bash scripts/demo.sh                         # about 20 s of gestures, then a clean shutdown
#   DEMO_SECONDS=60 bash scripts/demo.sh         # watch longer (the recording loops)
#   DEMO_RECORDING=path.evemu bash scripts/demo.sh   # serve another recording
#   DEMO_JSON=1 bash scripts/demo.sh             # raw protocol lines instead of the readable form
#   DEMO_PLOT=out.png bash scripts/demo.sh       # where the plot goes (.svg or .png; default /tmp/multitouchd-demo.svg)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# Progress stays visible: the first release build compiles every dependency (about 5 minutes on
# two busy cores, measured 5m23s); later runs take seconds.
echo "demo: swift build -c release (the first build takes a few minutes; later ones seconds)"
swift build -c release --product multitouchd
swift build -c release --product multitouchctl
bin=$(swift build -c release --show-bin-path)
recording=${DEMO_RECORDING:-checks/fixtures/touchscreen-map-tour.evemu}
seconds=${DEMO_SECONDS:-20}
plot=${DEMO_PLOT:-${TMPDIR:-/tmp}/multitouchd-demo.svg}
dir=$(mktemp -d /tmp/multitouchd-demo.XXXXXX)
socket="$dir/multitouchd.sock"
echo "demo: multitouchd --replay $recording --loop --socket $socket (no touch device needed;"
echo "      the replay starts once the client below has subscribed, so it sees every gesture)"
"$bin/multitouchd" --replay "$recording" --loop --no-devices --socket "$socket" --wait-for-subscribers 1 \
  --log-level notice 2>"$dir/daemon.log" &
daemon=$!
trap 'kill -TERM $daemon 2>/dev/null || true; wait $daemon 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 1 100); do [ -S "$socket" ] && break; sleep 0.05; done
json=()
[ "${DEMO_JSON:-0}" = 1 ] && json=(--json)
echo "demo: multitouchctl monitor --socket $socket (for ${seconds} s)"
# --follow: the replay loops, and monitor would end with its first pass (its device removed).
timeout "$seconds" "$bin/multitouchctl" monitor --socket "$socket" --follow --streams gestures devices "${json[@]}" || true
kill -TERM $daemon
wait $daemon && echo "demo: daemon exited cleanly" || echo "demo: daemon exit status $?"
echo "demo: multitouchctl plot $recording -o $plot"
"$bin/multitouchctl" plot "$recording" -o "$plot"
echo "demo: the plot of what it showed is $plot (open it in a browser or image viewer)"
