#!/bin/bash
# Device matrix, in the QEMU guest (started by checks/devices/run-matrix.sh): starts the release
# multitouchd with live discovery as shipped (inotify on /dev/input: no udevd here), then play.py makes
# each planned device through uhid and drives its scenarios while a socket client listens. The daemon's
# log goes to $MT_WORK/daemon.log (the host checks it for error lines and a crash).
set -u
W=$MT_WORK
sock=/run/multitouchd-matrix.sock   # guest tmpfs: a 9p directory cannot hold a Unix socket
echo "guest: kernel $(uname -r), command started at uptime ${QP_UPTIME_BOOTED:-?} s"
cut -d' ' -f1 /proc/uptime > "$W/uptime.start"
"$MT_DAEMON" --socket "$sock" --log-level info > "$W/daemon.log" 2>&1 &
D=$!
end=$((SECONDS + 120))   # a loaded host slows the emulated guest down a lot
until grep -q "daemon: ready" "$W/daemon.log" 2> /dev/null; do
  if [ $SECONDS -gt $end ] || ! kill -0 $D 2> /dev/null; then
    echo "guest: multitouchd did not start: $(tail -3 "$W/daemon.log")"
    exit 3
  fi
  sleep 0.1
done
# Real-time priority for the daemon as its unit gives it (systemd/multitouchd.service), where allowed.
chrt -f -p 10 $D > /dev/null 2>&1 || true
# The player (and its evdev reader) at real-time priority below the daemon's: a starved reader
# overflows its evdev buffer and loses the kernel's record it is judged against.
PRIO=
if chrt -f 5 true 2> /dev/null; then PRIO="chrt -f 5"; fi
# shellcheck disable=SC2086
PYTHONPATH= $PRIO "$MT_PYTHON" "$MT_ROOT/checks/devices/play.py" "$W/plans" "$W/out" "$sock" "$MT_CTL" $MT_NAMES
rc=$?
if kill -0 $D 2> /dev/null; then
  echo "alive" > "$W/daemon.status"
  kill -TERM $D
  wait $D
  echo "exit $?" >> "$W/daemon.status"
else
  wait $D
  echo "died $?" > "$W/daemon.status"
fi
cut -d' ' -f1 /proc/uptime > "$W/uptime.end"
echo "guest: done at uptime $(cat "$W/uptime.end") s"
exit $rc
