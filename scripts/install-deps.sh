#!/usr/bin/env bash
# Installs the Debian packages multitouchd needs to build and test (Debian 12 / Ubuntu). Idempotent:
# installs only what is missing. Run as root or with sudo available.
set -euo pipefail
# libyaml-dev: libinput record files (Recordings, through CLibYAML).
# librsvg2-bin: rsvg-convert, which `multitouchctl plot -o FILE.png` runs (the SVG needs nothing).
# python3-jsonschema: protocol/validate.py; gcc/g++: the C client's test; dpkg-dev: `make deb`.
# qml-qt6 ... qt6-qpa-plugins: an unmodified Qt Quick program reading TUIO (checks/tuio: the qml runtime,
# QtQuick and its Window module, the TuioTouch input plugin); python3-venv: Kivy from PyPI for the same test.
packages=(libevdev-dev libudev-dev libyaml-dev pkg-config python3 python3-jsonschema evemu-tools make gcc g++ dpkg-dev
  librsvg2-bin valgrind qml-qt6 qml6-module-qtquick qml6-module-qtquick-window qml6-module-qtqml-workerscript
  qt6-qpa-plugins python3-venv)
[ "${MULTITOUCHD_DEB_CHROOT:-0}" = 1 ] && packages+=(debootstrap)
# node: the JavaScript client's test (clients/js/test_client.mjs) needs Node 20 or later, which the
# build machines carry; Debian 12's nodejs (18) has no WebSocket, and the test says so.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
# The browser pages' test (checks/web/browser-check.py) drives headless Chromium.
if [ "${1:-}" = "--browser" ] || [ "${MULTITOUCHD_BROWSER_DEPS:-0}" = 1 ]; then
  packages+=(chromium fonts-dejavu-core)
fi
if [ "${1:-}" = "--guest" ] || [ "${MULTITOUCHD_GUEST_DEPS:-0}" = 1 ]; then
  packages+=(qemu-system-x86 busybox-static kmod cpio udev libinput-tools libinput-dev)
fi
if [ "${1:-}" = "--service" ] || [ "${MULTITOUCHD_SERVICE_DEPS:-0}" = 1 ]; then
  packages+=(systemd)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The device matrix (checks/devices) drives uhid devices with hid-tools from PyPI, in a venv of
# /usr/bin/python3 under .build/ that the QEMU guest sees through the shared root.
if [ "${1:-}" = "--guest" ] || [ "${MULTITOUCHD_GUEST_DEPS:-0}" = 1 ]; then
  bash "$(dirname "$0")/../checks/devices/hid-tools.sh" > /dev/null
fi
command -v swift >/dev/null || { echo "install-deps: swift 6 is not on PATH (https://www.swift.org/install/linux/)" >&2; exit 1; }
