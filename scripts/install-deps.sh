#!/usr/bin/env bash
# Installs the Debian packages multitouchd needs to build and test (Debian 12 / Ubuntu). Idempotent:
# installs only what is missing. Run as root or with sudo available.
set -euo pipefail
packages=(libevdev-dev libudev-dev pkg-config python3 python3-jsonschema evemu-tools make gcc g++ dpkg-dev)
[ "${MULTITOUCHD_DEB_CHROOT:-0}" = 1 ] && packages+=(debootstrap)
if [ "${1:-}" = "--guest" ] || [ "${MULTITOUCHD_GUEST_DEPS:-0}" = 1 ]; then
  packages+=(qemu-system-x86 busybox-static kmod cpio udev)
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
command -v swift >/dev/null || { echo "install-deps: swift 6 is not on PATH (https://www.swift.org/install/linux/)" >&2; exit 1; }
