#!/usr/bin/env bash
# Runs INSIDE the QEMU guest as root (checks/service/guest-service-check.sh starts it): installs
# multitouchd with `make install` (the guest's root is a throwaway overlay), then starts it exactly as
# multitouchd.service would, without systemd: the unit's ExecStart= command line, its user setup
# (a service user standing in for DynamicUser=, supplementary groups input and multitouch, no
# capabilities, no_new_privs, UMask=0077), RuntimeDirectory=multitouchd, and NOTIFY_SOCKET /
# WATCHDOG_USEC pointing at a socket this script listens on. Then checks:
#   READY=1 arrives; the socket has the configured mode and group; a member of the group connects and
#   gets the hello, a non-member is refused; a uinput touchscreen's fingers reach the client; SIGHUP
#   keeps the daemon serving; SIGTERM sends STOPPING=1 and ends the active touches, gesture and
#   session as "cancelled"; the daemon exits 0 and removes its socket.
# Environment: MTD_REPO (checkout), MTD_BIN (directory with multitouchd and multitouchctl),
# MTD_MODE=live|replay (live: uinput device; replay: --replay a recording that holds two fingers down).
set -uo pipefail
repo=${MTD_REPO:?}
bin=${MTD_BIN:?}
mode=${MTD_MODE:-live}
here=$repo/checks/service/guest
helper="python3 $here/service_check.py"
work=$(mktemp -d /run/mtd-check.XXXXXX)
chmod 755 "$work"
check=guest-service
# shellcheck source=lib.sh
. "$here/lib.sh"
notified() { grep -q "\"message\": \"[^\"]*$1" "$work/notify.log" 2>/dev/null; }

echo "guest-service: kernel $(uname -r), mode $mode"

# --- install, as an administrator would -------------------------------------------------------
cd "$repo"
if make -s install BUILD_DIR="$bin" > "$work/install.log" 2>&1; then
  pass "make install (PREFIX=/usr/local)"
else
  cat "$work/install.log"; fail "make install"; exit 1
fi
getent group multitouch > /dev/null && pass "make install created group multitouch (systemd-sysusers)" \
  || fail "no group multitouch after make install: $(cat "$work/install.log")"
unit=/usr/local/lib/systemd/system/multitouchd.service
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
[ -n "$exec_start" ] || { fail "no ExecStart= in $unit"; exit 1; }
read -r -a command <<< "$exec_start"
[ "$mode" = replay ] && command+=(--replay "$here/hold-replay.events" --desc "$here/touchscreen.desc" --no-devices --wait-for-subscribers 1)
echo "guest-service: command: ${command[*]}"

# --- the service's identity: DynamicUser= stand-in, groups, RuntimeDirectory= -----------------------
useradd --system --no-create-home --shell /usr/sbin/nologin mtd-service
useradd --system --no-create-home --shell /usr/sbin/nologin -G multitouch mtd-member
useradd --system --no-create-home --shell /usr/sbin/nologin mtd-outsider
install -d -o mtd-service -g mtd-service -m 0755 /run/multitouchd

# --- a touchscreen (udev gives its node group input, as on a real system) ---------------------------
device=""
if [ "$mode" = live ]; then
  evemu-device "$here/touchscreen.desc" > "$work/evemu-device.out" 2>&1 &
  evemu_pid=$!
  wait_for 20 grep -q /dev/input/event "$work/evemu-device.out"
  device=$(grep -o '/dev/input/event[0-9]*' "$work/evemu-device.out" | head -1)
  [ -n "$device" ] || { fail "evemu-device made no device: $(cat "$work/evemu-device.out")"; exit 1; }
  udevadm settle 2>/dev/null || true
  echo "guest-service: device $device: $(stat -c '%U:%G %a' "$device")"
  [ "$(stat -c %G "$device")" = input ] || fail "$device is not in group input (is udevd running? QP_UDEV=1)"
fi

# --- systemd's notification socket ---------------------------------------------------------------
$helper notify-listen "$work/notify" "$work/notify.log" &
listener_pid=$!
wait_for 10 test -S "$work/notify" || fail "notification socket not created"

# --- start the daemon as the unit would ----------------------------------------------------------
(
  umask 0077
  exec setpriv --reuid=mtd-service --regid=mtd-service --groups="$(getent group input | cut -d: -f3),$(getent group multitouch | cut -d: -f3)" \
    --inh-caps=-all --bounding-set=-all --no-new-privs \
    env -i PATH=/usr/local/bin:/usr/bin:/bin NOTIFY_SOCKET="$work/notify" WATCHDOG_USEC=2000000 \
    "${command[@]}"
) > "$work/daemon.log" 2>&1 &
daemon_pid=$!

if wait_for 30 notified READY=1; then
  pass "READY=1 received"
else
  fail "no READY=1 within 30 s"
  echo "--- daemon log"; cat "$work/daemon.log"; echo "--- notifications"; cat "$work/notify.log" 2>/dev/null
  kill "$daemon_pid" 2>/dev/null
  exit 1
fi
grep -q "\"pid\": $daemon_pid," "$work/notify.log" && pass "notifications come from the main process (NotifyAccess=main)" \
  || fail "READY=1 came from another pid than the daemon's $daemon_pid: $(head -1 "$work/notify.log")"

socket_path=/run/multitouchd/multitouchd.sock
if [ -S "$socket_path" ]; then
  stat_line=$(stat -c '%a %U %G' "$socket_path")
  [ "$stat_line" = "660 mtd-service multitouch" ] && pass "socket $socket_path is $stat_line" \
    || fail "socket is '$stat_line', expected '660 mtd-service multitouch'"
else
  fail "no socket at $socket_path"
fi

setpriv --reuid=mtd-outsider --regid=mtd-outsider --init-groups $helper connect-denied "$socket_path" \
  && pass "a user outside group multitouch is refused" || fail "outsider connection not refused"

# --- a client in the group; fingers down; SIGHUP; SIGTERM --------------------------------------
install -d -o mtd-member -m 0755 "$work/client"
setpriv --reuid=mtd-member --regid=mtd-member --init-groups $helper client "$socket_path" "$work/client/client.log" "$work/client/touching" \
  > "$work/client.out" 2>&1 &
client_pid=$!
wait_for 20 test -s "$work/client/client.log" && pass "group member connected and got: $(head -c 120 "$work/client/client.log")" \
  || fail "no hello for the client"
if [ "$mode" = live ]; then
  head -1 "$work/client/client.log" | grep -q "\"source\":\"$device\"" && pass "the hello lists $device" \
    || fail "the daemon serves no $device (hello: $(head -c 160 "$work/client/client.log"))"
fi

kill -HUP "$daemon_pid"
sleep 1   # give a crash on reload the chance to happen before the check below
kill -0 "$daemon_pid" 2>/dev/null && pass "daemon still running after SIGHUP (reload)" || fail "daemon died on SIGHUP"
notified RELOADING=1 && echo "guest-service: info: the daemon sent RELOADING=1 on SIGHUP" \
  || echo "guest-service: info: no RELOADING=1 on SIGHUP (fine for Type=notify; needed for Type=notify-reload)"

if [ "$mode" = live ]; then
  wait_for 20 grep -q subscribed "$work/client/client.log"
  evemu-play "$device" < "$here/hold.events"
fi
if wait_for 30 test -e "$work/client/touching"; then
  pass "the client saw fingers land"
else
  fail "the client saw no touch begin"
fi
wait_for 10 notified WATCHDOG=1 && pass "WATCHDOG=1 pings arrive (WATCHDOG_USEC=2 s)" || fail "no WATCHDOG=1 ping within 10 s"

kill -TERM "$daemon_pid"
wait "$daemon_pid"; status=$?
[ "$status" = 0 ] && pass "daemon exited 0 on SIGTERM" || fail "daemon exit status $status on SIGTERM"
notified STOPPING=1 && pass "STOPPING=1 received" || fail "no STOPPING=1"
wait_for 10 sh -c "! kill -0 $client_pid 2>/dev/null" || kill "$client_pid" 2>/dev/null
cat "$work/client.out"
$helper summarize "$work/client/client.log" && pass "SIGTERM ended the touches, gesture and session as cancelled" \
  || fail "shutdown did not cancel everything (client log: $(wc -l < "$work/client/client.log" 2>/dev/null) lines)"
[ ! -e "$socket_path" ] && pass "socket removed at exit" || fail "socket $socket_path left behind"

echo "--- notifications"; sed 's/^/  /' "$work/notify.log"
echo "--- daemon log (last 25 lines)"; tail -25 "$work/daemon.log" | sed 's/^/  /'
kill "$listener_pid" 2>/dev/null
[ -n "${evemu_pid:-}" ] && kill "$evemu_pid" 2>/dev/null
[ -n "${QP_OUT:-}" ] && cp "$work"/*.log "$work"/client/*.log "$QP_OUT"/ 2>/dev/null
echo "guest-service: $failures failure(s) in mode $mode"
exit $((failures > 0))
