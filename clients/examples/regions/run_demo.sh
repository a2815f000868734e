#!/bin/sh
# Runs multitouchd on the bundled recording with the three region programs and prints who got what.
#   clients/examples/regions/run_demo.sh [BIN_DIR]   (default: `swift build --show-bin-path`)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$(cd "$here/../../.." && swift build --show-bin-path)}
tmp=$(mktemp -d /tmp/mtd-regions-XXXXXX)
daemon=""
trap 'if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null || true; fi; rm -rf "$tmp"' EXIT
"$bin/multitouchd" --socket "$tmp/mtd.sock" --no-devices --replay "$here/tap-and-pinch.evemu" \
    --wait-for-subscribers 3 2>"$tmp/daemon.log" &
daemon=$!
for _ in $(seq 200); do [ -S "$tmp/mtd.sock" ] && break; sleep 0.05; done
python3 "$here/map.py" "$tmp/mtd.sock" >"$tmp/map.out" & map=$!
python3 "$here/toolbar.py" "$tmp/mtd.sock" >"$tmp/toolbar.out" & toolbar=$!
python3 "$here/observer.py" "$tmp/mtd.sock" >"$tmp/observer.out" & observer=$!
status=0
wait "$map" || status=1
wait "$toolbar" || status=1
wait "$observer" || status=1
for program in toolbar map observer; do
    cat "$tmp/$program.out"
    echo
done
exit $status
