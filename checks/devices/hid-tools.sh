#!/usr/bin/env bash
# Installs hid-tools (PyPI) for the device matrix into a virtual environment of Debian's
# /usr/bin/python3, at .build/hid-tools (or $MT_HIDTOOLS): the QEMU guest sees the host's root, so the
# guest's /usr/bin/python3 runs the same environment. A venv keeps Debian's externally managed Python
# untouched (no --break-system-packages). Idempotent; prints the environment's python on stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${MT_HIDTOOLS:-$PWD/.build/hid-tools}
version=0.12
if ! "$venv/bin/python" -c "import hidtools, sys; sys.exit(0 if hidtools.__version__ == '$version' else 1)" 2> /dev/null; then
  /usr/bin/python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "hid-tools==$version" >&2
fi
echo "$venv/bin/python"
