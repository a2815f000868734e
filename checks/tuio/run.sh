#!/usr/bin/env bash
# TUIO output against clients no one here wrote (docs/TUIO.md): Qt's TuioTouch plugin (qt_check.py,
# with the two-program region check) and Kivy's TUIO provider (kivy_check.py); then `multitouchctl
# tuio --region --exclusive` across a daemon restart (forwarder_check.py, about 5 s).
#   bash checks/tuio/run.sh [BIN_DIR]     (default: `swift build --show-bin-path`)
# Qt comes from Debian (scripts/install-deps.sh). Kivy, its oscpy and python-osc (a second OSC decoder)
# come from PyPI into .build/tuio-venv when pip can reach it; without them the Kivy check says it was
# skipped and qt_check uses only its own OSC decoder. Loopback UDP only.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$(cd "$root" && swift build --show-bin-path)}
venv="$root/.build/tuio-venv"
python=python3
if [ -x "$venv/bin/python" ] || python3 -m venv "$venv" > /dev/null 2>&1; then
  if "$venv/bin/python" -c 'import kivy, oscpy, pythonosc' 2> /dev/null \
    || timeout 300 "$venv/bin/pip" install --quiet --disable-pip-version-check kivy oscpy python-osc > /dev/null 2>&1; then
    python="$venv/bin/python"
  else
    echo "tuio: pip could not install kivy, oscpy and python-osc; Kivy skipped, one OSC decoder"
  fi
fi
"$python" "$here/qt_check.py" --daemon "$bin/multitouchd" --ctl "$bin/multitouchctl" --regions
"$python" "$here/kivy_check.py" --daemon "$bin/multitouchd" --ctl "$bin/multitouchctl"
"$python" "$here/forwarder_check.py" --daemon "$bin/multitouchd" --ctl "$bin/multitouchctl"
