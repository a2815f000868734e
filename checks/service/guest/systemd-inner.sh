#!/usr/bin/env bash
# Runs INSIDE the QEMU guest as root (checks/service/guest-service-check.sh starts it): installs
# multitouchd from its Debian package (MTD_DEB) or with `make install`, then boots the host's systemd (seen through 9p) as PID 1 of a new
# PID namespace. Its default unit, mtd-check.target, pulls in sysinit/basic (udevd, journald,
# sysusers...), multitouchd.socket, multitouchd.service and mtd-probe.service, which runs
# systemd-probe.sh against the real, hardened units and ends systemd with `systemctl exit <failures>`.
# The guest's kernel is a real VM kernel, so seccomp, MemoryDenyWriteExecute, DeviceAllow (cgroup BPF),
# DynamicUser and the mount namespaces all take effect.
set -uo pipefail
repo=${MTD_REPO:?}
bin=${MTD_BIN:?}
cd "$repo"
# MTD_DEB: install the Debian package (dpkg -i runs its maintainer scripts: the multitouch group
# through systemd-sysusers, the units enabled), as a user would; else `make install` under /usr/local.
if [ -n "${MTD_DEB:-}" ]; then
  # man-db's trigger would re-index every man page of the host's root, read through 9p under TCG: 90 of
  # the 95 s dpkg -i took here. Without its auto-update flag the trigger says so and skips the index
  # (the package's pages are installed all the same; man finds them by path). The guest's writes are
  # discarded with it.
  rm -f /var/lib/man-db/auto-update
  if ! dpkg -i "$MTD_DEB" > /run/mtd-install.log 2>&1; then
    cat /run/mtd-install.log
    echo "guest-systemd: FAIL: dpkg -i $MTD_DEB"
    exit 1
  fi
  prefix=/usr
  unitdir=/usr/lib/systemd/system
  echo "guest-systemd: installed $(basename "$MTD_DEB") with dpkg -i ($(dpkg-query -W -f '${Version}' multitouchd))"
else
  if ! make -s install BUILD_DIR="$bin" > /run/mtd-install.log 2>&1; then
    cat /run/mtd-install.log
    echo "guest-systemd: FAIL: make install"
    exit 1
  fi
  prefix=/usr/local
  unitdir=/usr/local/lib/systemd/system
  echo "guest-systemd: installed with make install"
fi
echo "guest-systemd: booting systemd $(systemctl --version | head -1 | cut -d' ' -f2) in a PID namespace (uptime $(cut -d' ' -f1 /proc/uptime) s)"

# systemd-tmpfiles empties /tmp at boot (tmp.conf: "D /tmp"). In this guest /tmp is the host's, seen
# through the overlay: emptying it took systemd-tmpfiles-setup 181 s of whiteouts over 9p (5.9 GB of
# build trees), and a checkout under /tmp would vanish under the probe. /tmp stays as it is (a "d"
# line of the same name overrides the shipped one), and the probe runs from a copy of its directory.
mkdir -p /etc/tmpfiles.d
printf 'd /tmp 1777 root root -\n' > /etc/tmpfiles.d/tmp.conf
probe_root=/var/lib/mtd-check
rm -rf "$probe_root"
mkdir -p "$probe_root/checks/service"
cp -a "$repo/checks/service/guest" "$probe_root/checks/service/"

mkdir -p /etc/systemd/system
cat > /etc/systemd/system/mtd-check.target <<EOF
[Unit]
Description=multitouchd service check
Wants=multitouchd.socket multitouchd.service mtd-probe.service
EOF
cat > /etc/systemd/system/mtd-probe.service <<EOF
[Unit]
Description=multitouchd service check probe
After=multitouchd.service
[Service]
Type=oneshot
Environment=MTD_REPO=$probe_root QP_OUT=${QP_OUT:-/run} MTD_DEBUG=${MTD_DEBUG:-} MTD_LIVE=${MTD_LIVE:-1} MTD_PREFIX=$prefix MTD_UNITDIR=$unitdir
ExecStart=/bin/bash $probe_root/checks/service/guest/systemd-probe.sh
StandardOutput=file:${QP_OUT:-/run}/systemd-probe.log
StandardError=inherit
EOF

# systemd needs its own /proc for the new PID namespace (--mount-proc); /sys/fs/cgroup it mounts itself.
timeout 420 unshare --pid --fork --mount-proc /lib/systemd/systemd --unit=mtd-check.target \
  --log-target=console --log-level=warning --show-status=false > /run/mtd-systemd.log 2>&1
status=$?
echo "guest-systemd: systemd ended at uptime $(cut -d' ' -f1 /proc/uptime) s"
cat "${QP_OUT:-/run}/systemd-probe.log" 2>/dev/null || echo "guest-systemd: the probe wrote no log"
if [ $status -ne 0 ]; then
  echo "--- systemd's own log (warnings)"
  tail -40 /run/mtd-systemd.log
fi
echo "guest-systemd: systemd exited with $status (the probe's failure count; 124 = timeout)"
exit $status
