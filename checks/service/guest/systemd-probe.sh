#!/usr/bin/env bash
# Runs as mtd-probe.service under the guest's systemd (systemd-inner.sh): checks the installed
# multitouchd.socket and multitouchd.service for real, then ends systemd with `systemctl exit N`
# (N = failures). Checks: the service is active (Type=notify: READY=1 reached systemd) with its
# socket passed by multitouchd.socket (mode, group); the process runs as a dynamic user with groups
# input and multitouch, no capabilities, no_new_privs, a seccomp filter and the scheduling the unit
# asks for; a group member gets the hello, an outsider is refused; `systemctl reload` keeps it active;
# the watchdog is fed; with a replay drop-in the fingers of a held touch reach a client and
# `systemctl stop` ends them as cancelled; the stop is clean.
set -uo pipefail
repo=${MTD_REPO:?}
prefix=${MTD_PREFIX:-/usr/local}            # /usr when installed from the .deb
unitdir=${MTD_UNITDIR:-$prefix/lib/systemd/system}
here=$repo/checks/service/guest
helper="python3 $here/service_check.py"
work=$(mktemp -d /run/mtd-probe.XXXXXX)
chmod 755 "$work"
check=guest-systemd
# shellcheck source=lib.sh
. "$here/lib.sh"
show() { systemctl show -p "$2" --value "$1"; }
echo "guest-systemd: probe started at uptime $(cut -d' ' -f1 /proc/uptime) s"
finish() {
  [ -n "${evemu_pids:-}" ] && kill $evemu_pids 2>/dev/null   # the uinput devices this script made
  echo "--- journal of multitouchd.service"
  journalctl --no-pager -o cat -u multitouchd.service 2>/dev/null | tail -30 | sed 's/^/  /'
  echo "guest-systemd: $failures failure(s)"
  systemctl exit "$failures"
  exit 0
}

state=$(show multitouchd.service ActiveState)/$(show multitouchd.service SubState)
[ "$state" = active/running ] && pass "multitouchd.service is active (READY=1 reached systemd)" \
  || { fail "multitouchd.service is $state: $(show multitouchd.service Result)"; systemctl --no-pager status multitouchd.service; finish; }
echo "guest-systemd: status text: $(show multitouchd.service StatusText)"
[ "$(show multitouchd.socket ActiveState)" = active ] && pass "multitouchd.socket is active" || fail "multitouchd.socket is not active"

socket_path=/run/multitouchd/multitouchd.sock
stat_line=$(stat -c '%a %U %G' "$socket_path" 2>&1)
[ "$stat_line" = "660 root multitouch" ] && pass "socket $socket_path is $stat_line (from multitouchd.socket)" \
  || fail "socket is '$stat_line', expected '660 root multitouch'"
journalctl --no-pager -o cat -u multitouchd.service | grep -q "socket activation" \
  && pass "the daemon took the socket from systemd (socket activation)" || fail "the journal does not show socket activation"
# Under the journal the daemon writes <N> priorities (journald strips them) and no timestamp of its own.
journal=$(journalctl --no-pager -o cat -u multitouchd.service _PID="$(show multitouchd.service MainPID)")
if grep -qE '^(<[0-7]>|[0-9]{4}-[0-9]{2}-[0-9]{2}T)' <<< "$journal"; then
  fail "journal lines carry a raw <N> or a second timestamp: $(grep -m1 -E '^(<|[0-9]{4}-)' <<< "$journal")"
else
  pass "journal lines have no raw priority prefix and no second timestamp"
fi
journalctl --no-pager -o cat -u multitouchd.service -p info..info | grep -q "socket activation" \
  && ! journalctl --no-pager -o cat -u multitouchd.service -p warning | grep -q "socket activation" \
  && pass "info lines are PRIORITY=6: -p warning hides them" || fail "journal priorities of info lines"

pid=$(show multitouchd.service MainPID)
status=/proc/$pid/status
uid=$(awk '/^Uid:/{print $2}' "$status")
groups=$(awk '/^Groups:/{$1=""; print}' "$status")
input_gid=$(getent group input | cut -d: -f3)
multitouch_gid=$(getent group multitouch | cut -d: -f3)
echo "guest-systemd: pid $pid uid $uid groups$groups; $(grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' "$status" | tr '\n\t' '  ')"
[ "$uid" -ge 61184 ] && [ "$uid" -le 65519 ] && pass "runs as a dynamic user (uid $uid)" || fail "uid $uid is not a DynamicUser uid"
[[ " $groups " == *" $input_gid "* && " $groups " == *" $multitouch_gid "* ]] \
  && pass "supplementary groups input and multitouch" || fail "groups$groups lack input ($input_gid) or multitouch ($multitouch_gid)"
grep -q '^CapBnd:.*0000000000000000' "$status" && pass "no capabilities (bounding set empty)" || fail "capabilities: $(grep ^CapBnd "$status")"
grep -q '^NoNewPrivs:.*1' "$status" && pass "no_new_privs" || fail "no_new_privs not set"
grep -q '^Seccomp:.*2' "$status" && pass "seccomp filter active (SystemCallFilter)" || fail "no seccomp filter"
# The scheduling the unit asks for (CPUSchedulingPolicy=, CPUSchedulingPriority=, Nice=; chosen from
# the fan-out measurements, docs/PERFORMANCE.md) is what the process runs with, under DynamicUser= and
# RestrictRealtime=yes: systemd sets it as root before it drops privileges and installs the filter.
unit_value() { sed -n "s/^$1=//p" "$unitdir/multitouchd.service" | tail -1; }
case "$(unit_value CPUSchedulingPolicy)" in fifo) want_policy=1 ;; rr) want_policy=2 ;; batch) want_policy=3 ;; idle) want_policy=5 ;; *) want_policy=0 ;; esac
want_priority=$(unit_value CPUSchedulingPriority); want_priority=${want_priority:-0}
want_nice=$(unit_value Nice); want_nice=${want_nice:-0}
read -r nice rt_priority policy <<< "$(awk '{print $19, $40, $41}' "/proc/$pid/stat")"
[ "$policy/$rt_priority/$nice" = "$want_policy/$want_priority/$want_nice" ] \
  && pass "scheduling as the unit says: policy $policy, priority $rt_priority, nice $nice ($(chrt -p "$pid" | head -1 | sed 's/.*: //'))" \
  || fail "scheduling policy/priority/nice $policy/$rt_priority/$nice, the unit asks for $want_policy/$want_priority/$want_nice"
grep -q "^ExecStart=$prefix/bin/multitouchd" "$unitdir/multitouchd.service" \
  && pass "the installed unit ($unitdir) runs $prefix/bin/multitouchd" || fail "the unit in $unitdir does not run $prefix/bin/multitouchd"
grep -q "^MemoryDenyWriteExecute=yes" "$unitdir/multitouchd.service" \
  && pass "the Swift daemon runs under MemoryDenyWriteExecute=yes" || fail "MemoryDenyWriteExecute=yes missing from the unit"

useradd --system --no-create-home -G multitouch mtd-member
useradd --system --no-create-home mtd-outsider
setpriv --reuid=mtd-outsider --regid=mtd-outsider --init-groups $helper connect-denied "$socket_path" \
  && pass "a user outside group multitouch is refused" || fail "outsider not refused"
hello=$(setpriv --reuid=mtd-member --regid=mtd-member --init-groups timeout 20 python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.makefile().readline().strip())' "$socket_path" 2>&1)
[[ "$hello" == *'"type":"hello"'* ]] && pass "group member got: ${hello:0:100}" || fail "no hello: $hello"

systemctl reload multitouchd.service
sleep 1
[ "$(show multitouchd.service ActiveState)" = active ] && pass "active after systemctl reload" || fail "not active after reload"
wait_for 30 sh -c "[ -n \"\$(systemctl show -p WatchdogTimestampMonotonic --value multitouchd.service | grep -v '^0$')\" ]" \
  && pass "watchdog fed (WatchdogTimestamp $(show multitouchd.service WatchdogTimestamp))" || fail "no watchdog ping recorded"

# A live touchscreen under the hardened unit (DeviceAllow=char-input r, group input, udev): the
# daemon enumerates it at start, and the fingers of a held touch are cancelled by systemctl stop.
# cancel_check NAME: a client subscribes, fingers land (evemu-play in live mode), systemctl stop.
cancel_check() {
  local name=$1 device=${2:-}
  rm -rf "$work/client"; install -d -o mtd-member "$work/client"
  setpriv --reuid=mtd-member --regid=mtd-member --init-groups $helper client "$socket_path" "$work/client/client.log" "$work/client/touching" \
    > "$work/client.out" 2>&1 &
  local client_pid=$!
  if [ -n "$device" ]; then
    wait_for 20 grep -q subscribed "$work/client/client.log"
    evemu-play "$device" < "$here/hold.events"
  fi
  wait_for 30 test -e "$work/client/touching" && pass "$name: the client saw fingers land" || fail "$name: no touch began for the client"
  systemctl stop multitouchd.service
  wait_for 20 sh -c "! kill -0 $client_pid 2>/dev/null" || kill "$client_pid" 2>/dev/null
  cat "$work/client.out"
  $helper summarize "$work/client/client.log" && pass "$name: systemctl stop ended the touches, gesture and session as cancelled" \
    || fail "$name: stop did not cancel everything"
  local result
  result=$(show multitouchd.service Result)
  [ "$result" = success ] && pass "$name: clean stop (Result=$result)" || fail "$name: stop result $result"
}

evemu-device "$here/touchscreen.desc" > "$work/evemu-device.out" 2>&1 &
evemu_pids="${evemu_pids:-} $!"
wait_for 20 grep -q /dev/input/event "$work/evemu-device.out"
device=$(grep -o '/dev/input/event[0-9]*' "$work/evemu-device.out" | head -1)
udevadm settle 2>/dev/null
echo "guest-systemd: uinput touchscreen $device: $(stat -c '%U:%G %a' "$device" 2>&1)"
# Device access inside the exact sandbox of multitouchd.service, whatever the daemon itself opens:
# a copy of the unit that runs `multitouchctl devices --json --watch` (libevdev opens every node, and
# udev's netlink monitor reports a second touchscreen plugged in while it watches).
sed -e 's/^Type=notify/Type=exec/' -e '/^NotifyAccess=/d' -e '/^WatchdogSec=/d' -e '/^ExecReload=/d' \
    -e '/^Requires=/d' -e '/^Restart/d' \
    -e "s|^ExecStart=.*|ExecStart=$prefix/bin/multitouchctl devices --json --watch --timeout 20|" \
    "$unitdir/multitouchd.service" > /run/systemd/system/mtd-devices.service
# Its output goes to the journal: a StandardOutput=file: under /run came back empty in this sandbox.
printf 'StandardOutput=journal\nStandardError=journal\n' >> /run/systemd/system/mtd-devices.service
systemctl daemon-reload
systemctl start mtd-devices.service
sleep 3   # let it list the first device and start watching before the second appears
evemu-device "$here/touchscreen.desc" > "$work/evemu-device2.out" 2>&1 &
evemu_pids="${evemu_pids:-} $!"
wait_for 20 grep -q /dev/input/event "$work/evemu-device2.out"
device2=$(grep -o '/dev/input/event[0-9]*' "$work/evemu-device2.out" | head -1)
wait_for 40 sh -c "[ \"\$(systemctl show -p ActiveState --value mtd-devices.service)\" != active ]"
journalctl --no-pager -o cat -u mtd-devices.service | grep -v -E '^(Started|Starting|Stopped|Stopping|Deactivated|mtd-devices)' > "$work/devices.json"
echo "guest-systemd: multitouchctl devices under the unit's sandbox ($(show mtd-devices.service Result)):"
sed 's/^/  /' "$work/devices.json"
grep -q "^{\"path\":\"$device\",\"name\":\"Probe MT Touchscreen\".*\"class\":\"touchscreen\"" "$work/devices.json" \
  && pass "sandboxed: $device opened and classified (DeviceAllow=char-input r, group input)" \
  || fail "sandboxed: $device not opened under the unit's settings"
grep -q "\"event\":\"added\",\"device\":{\"path\":\"$device2\",\"name\":\"Probe MT Touchscreen\"" "$work/devices.json" \
  && pass "sandboxed: hotplug of $device2 reported" || fail "sandboxed: no hotplug report for ${device2:-the second device}"

if [ "${MTD_LIVE:-1}" = 0 ]; then
  echo "guest-systemd: SKIP (not counted as passed): live device through the daemon (MTD_LIVE=0)"
else
systemctl restart multitouchd.service
hello=$(setpriv --reuid=mtd-member --regid=mtd-member --init-groups timeout 20 python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.makefile().readline().strip())' "$socket_path" 2>&1)
if [[ "$hello" == *"\"source\":\"$device\""* ]]; then
  pass "live: the hello lists $device (opened through DeviceAllow and group input)"
  echo "guest-systemd: live checks at uptime $(cut -d' ' -f1 /proc/uptime) s"
  cancel_check live "$device"
else
  fail "live: the daemon serves no $device under the unit (hello: ${hello:0:160})"
  journalctl --no-pager -o cat -u multitouchd.service | grep -i -E "device|denied|error" | tail -5 | sed 's/^/  /'
fi
fi

# Touches under the hardened unit: the same unit with a replay that holds two fingers down. Its files
# are copied to $work under /run: the unit's PrivateTmp= hides a checkout under /tmp, and ProtectHome=
# one under /home.
install -m 0644 "$here/hold-replay.events" "$here/touchscreen.desc" "$work/"
mkdir -p /run/systemd/system/multitouchd.service.d
cat > /run/systemd/system/multitouchd.service.d/replay.conf <<EOF
[Service]
ExecStart=
ExecStart=$prefix/bin/multitouchd --config /etc/multitouchd/multitouchd.toml --replay $work/hold-replay.events --desc $work/touchscreen.desc --no-devices --wait-for-subscribers 1
EOF
systemctl daemon-reload
timeout 60 systemctl restart multitouchd.service && pass "restarted with a replay drop-in" || fail "restart with the replay drop-in"
cancel_check replay
echo "guest-systemd: probe done at uptime $(cut -d' ' -f1 /proc/uptime) s"
finish
