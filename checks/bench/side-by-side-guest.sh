#!/usr/bin/env bash
# Runs inside the QEMU guest (checks/bench/side-by-side.sh starts it with udevd running). For every
# $MT_WORK/rec/*.evemu: creates the uinput device (evemu-device), starts on that one node (a) the
# bare libevdev loop (evdev-floor read), (b) libinput debug-events, (c) multitouchd with one client
# subscribed to touches, gestures and devices (evdev-floor client), (d) libinput in-process
# (libinput-latency: its delivery latency), plays the recording in real time (checks/guest/play.py), and
# writes each reader's CPU time (/proc/PID/schedstat, ns) and the latency lines to $MT_WORK/out/NAME.txt.
set -uo pipefail
W=$MT_WORK
mkdir -p "$W/out"
cpu() { awk '{print $1}' "/proc/$1/schedstat" 2>/dev/null || echo 0; }
wait_for() {  # FILE PATTERN: up to 20 s
  local end=$((SECONDS + 20))
  until grep -q "$2" "$1" 2>/dev/null; do [ $SECONDS -le $end ] || return 1; sleep 0.1; done
}
for rec in "$W"/rec/${MT_ONLY:-*}.evemu; do
  name=$(basename "$rec" .evemu)
  out=$W/out/$name.txt
  : > "$out"
  evemu-device "$rec" > "$W/out/$name.device" 2>&1 &
  dev_pid=$!
  node=
  for _ in $(seq 100); do
    node=$(grep -o '/dev/input/event[0-9]*' "$W/out/$name.device" | head -1)
    [ -n "$node" ] && [ -e "$node" ] && break
    sleep 0.1
  done
  [ -n "$node" ] || { echo "error: evemu-device $name: $(cat "$W/out/$name.device")" >> "$out"; continue; }
  udevadm settle --timeout=20
  "$W/evdev-floor" read "$node" > "$W/out/$name.floor" 2>&1 &
  floor_pid=$!
  libinput debug-events --device "$node" > "$W/out/$name.libinput" 2>&1 &
  li_pid=$!
  "$W/libinput-latency" "$node" > "$W/out/$name.inproc" 2>&1 &
  lat_pid=$!
  sock=/run/mtd-bench.sock
  # MT_DAEMON_PREFIX: the unit's scheduling (chrt -f 10), or nothing.
  ${MT_DAEMON_PREFIX:-} "$MT_DAEMON" --socket "$sock" --log-level info > "$W/out/$name.daemon" 2>&1 &
  d_pid=$!
  wait_for "$W/out/$name.daemon" "daemon: ready" || echo "error: multitouchd did not start" >> "$out"
  "$W/evdev-floor" client "$sock" > "$W/out/$name.client" 2>&1 &
  c_pid=$!
  sleep 3   # everyone has opened the device and subscribed; libinput has finished its start-up
  before="$(cpu $floor_pid) $(cpu $li_pid) $(cpu $d_pid) $(cpu $c_pid) $(cpu $lat_pid)"
  if [ "${MT_PROFILE:-0}" = 1 ]; then   # a profiling run (numbers then disturbed): perf and syscalls of the daemon
    perf record -F 997 -g -o "$W/out/$name.perf.data" -p $d_pid > "$W/out/$name.perf.log" 2>&1 &
    perf_pid=$!
    strace -c -f -o "$W/out/$name.strace" -p $d_pid 2> /dev/null &
    strace_pid=$!
  fi
  start=$(date +%s.%N)
  python3 "$MT_ROOT/checks/guest/play.py" "$node" < "$rec"
  played=$(date +%s.%N)
  sleep 2   # let every reader drain
  [ "${MT_PROFILE:-0}" = 1 ] && { kill -INT $perf_pid $strace_pid; wait $perf_pid $strace_pid 2>/dev/null; }
  after="$(cpu $floor_pid) $(cpu $li_pid) $(cpu $d_pid) $(cpu $c_pid) $(cpu $lat_pid)"
  echo "cpu_before $before" >> "$out"
  echo "cpu_after $after" >> "$out"
  echo "daemon_sched $(chrt -p $d_pid 2>&1 | head -1 | sed 's/.*: //')" >> "$out"
  echo "play_seconds $(python3 -c "print(round($played - $start, 2))")" >> "$out"
  kill -TERM $floor_pid $c_pid $lat_pid
  wait $floor_pid $c_pid $lat_pid 2>/dev/null
  kill -TERM $li_pid $d_pid
  wait $li_pid $d_pid 2>/dev/null
  cat "$W/out/$name.floor" "$W/out/$name.client" "$W/out/$name.inproc" >> "$out"
  echo "libinput_lines $(grep -c . "$W/out/$name.libinput") libinput_gestures $(grep -c GESTURE "$W/out/$name.libinput") libinput_touch $(grep -c TOUCH_ "$W/out/$name.libinput")" >> "$out"
  kill $dev_pid 2>/dev/null
  wait $dev_pid 2>/dev/null
  sleep 0.5
done
