#!/usr/bin/env bash
# Checks `make install` and `make uninstall` into a staging DESTDIR (never the live system):
# the file layout and modes, the units rewritten to PREFIX, an existing configuration kept on
# reinstall, the multitouch group created by systemd-sysusers --root, the installed units passing
# systemd-analyze verify, `multitouchd --check-config` on the installed file, and an uninstall that
# leaves only an edited configuration behind. Uses the debug build unless BUILD_DIR is given.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-$(swift build --show-bin-path)}
[ -x "$BUILD_DIR/multitouchd" ] && [ -x "$BUILD_DIR/multitouchctl" ] || {
  echo "install-check: no multitouchd/multitouchctl in $BUILD_DIR (swift build first)" >&2
  exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "install-check: FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "install-check: ok: $*"; }
mode_is() { # path mode
  local m
  m=$(stat -c %a "$1" 2>/dev/null || echo missing)
  [ "$m" = "$2" ] && pass "$1 mode $2" || fail "$1 mode is $m, expected $2"
}

for prefix in /usr/local /usr; do
  dest=$work/stage${prefix//\//-}
  echo "install-check: make install PREFIX=$prefix DESTDIR=$dest"
  make -s install PREFIX="$prefix" DESTDIR="$dest" BUILD_DIR="$BUILD_DIR" > "$work/install.log" 2>&1 || {
    cat "$work/install.log"
    fail "make install PREFIX=$prefix"
    continue
  }
  grep -q "on the target run: systemd-sysusers $prefix/lib/sysusers.d/multitouchd.conf" "$work/install.log" \
    && pass "staged install says how to create the group" || fail "no sysusers hint in: $(cat "$work/install.log")"

  # One binary, two names (issue 29 item 9): multitouchd is a link to multitouchctl.
  [ "$(readlink "$dest$prefix/bin/multitouchd")" = multitouchctl ] \
    && pass "$dest$prefix/bin/multitouchd is a link to multitouchctl" || fail "$dest$prefix/bin/multitouchd is not a link to multitouchctl"
  mode_is "$dest$prefix/bin/multitouchctl" 755
  mode_is "$dest$prefix/lib/systemd/system/multitouchd.service" 644
  mode_is "$dest$prefix/lib/systemd/system/multitouchd.socket" 644
  mode_is "$dest$prefix/lib/systemd/system/multitouchd-tuio@.service" 644
  mode_is "$dest$prefix/lib/systemd/system/multitouchd-bridge.service" 644
  [ -x "$dest$prefix/share/multitouchd/examples/kiosk/rehearse.py" ] && [ -f "$dest$prefix/share/multitouchd/examples/kiosk/kiosk.evemu" ] \
    && pass "the kiosk example installed" || fail "the kiosk example is missing from $prefix/share/multitouchd/examples/kiosk"
  mode_is "$dest$prefix/lib/sysusers.d/multitouchd.conf" 644
  mode_is "$dest/etc/multitouchd/multitouchd.toml" 644
  cmp -s config/multitouchd.toml "$dest/etc/multitouchd/multitouchd.toml" \
    && pass "configuration is the shipped file" || fail "installed configuration differs"
  [ -f "$dest$prefix/share/doc/multitouchd/SERVICE.md" ] && [ -f "$dest$prefix/share/doc/multitouchd/CONFIGURATION.md" ] \
    && pass "docs installed" || fail "docs missing from $prefix/share/doc/multitouchd"
  [ -f "$dest$prefix/share/multitouchd/python/multitouchd_client/client.py" ] && [ ! -e "$dest$prefix/share/multitouchd/python/test_client.py" ] \
    && pass "python client package installed (without its tests)" || fail "python client not installed as expected"
  [ -f "$dest$prefix/include/multitouchd.h" ] && grep -qx "prefix=$prefix" "$dest$prefix/share/pkgconfig/multitouchd.pc" \
    && pass "C header and multitouchd.pc (prefix=$prefix)" || fail "C header or pkg-config file missing"
  [ -f "$dest$prefix/share/multitouchd/recordings/touchscreen-pinch-rotate.evemu" ] \
    && [ -f "$dest$prefix/share/multitouchd/protocol/multitouchd.schema.json" ] \
    && pass "sample recordings and schema installed" || fail "recordings or schema missing"
  unit=$dest$prefix/lib/systemd/system/multitouchd.service
  grep -qx "ExecStart=$prefix/bin/multitouchd --config /etc/multitouchd/multitouchd.toml" "$unit" \
    && pass "ExecStart uses $prefix/bin" || fail "ExecStart in $unit: $(grep ExecStart= "$unit")"
  if [ "$prefix" != /usr/local ] && grep -v '^#' "$unit" | grep -q /usr/local; then fail "$unit still names /usr/local"; fi
  for u in multitouchd-tuio@.service multitouchd-bridge.service; do
    grep -q "^ExecStart=$prefix/bin/multitouchctl " "$dest$prefix/lib/systemd/system/$u" \
      && pass "$u: ExecStart uses $prefix/bin" || fail "$u: $(grep ExecStart= "$dest$prefix/lib/systemd/system/$u")"
  done

  # The group, as systemd-sysusers creates it at boot (or make install on a live system).
  if command -v systemd-sysusers >/dev/null; then
    systemd-sysusers --root="$dest" > /dev/null 2>&1 || true
    grep -q '^multitouch:' "$dest/etc/group" 2>/dev/null \
      && pass "systemd-sysusers --root creates group multitouch" || fail "no multitouch group in $dest/etc/group"
  else
    fail "systemd-sysusers not installed (apt-get install systemd)"
  fi

  # The installed units verify, with ExecStart pointed into the stage (verify needs the file).
  if command -v systemd-analyze >/dev/null; then
    mkdir -p "$work/verify"
    for u in multitouchd.service multitouchd.socket multitouchd-tuio@.service multitouchd-bridge.service; do
      sed "s|$prefix/bin/|$dest$prefix/bin/|g" "$dest$prefix/lib/systemd/system/$u" > "$work/verify/$u"
    done
    out=$(cd "$work/verify" && SYSTEMD_UNIT_PATH="$work/verify:" systemd-analyze verify multitouchd.socket multitouchd.service \
      multitouchd-tuio@qt.service multitouchd-bridge.service 2>&1) \
      && [ -z "$out" ] && pass "installed units verify cleanly" || fail "systemd-analyze verify: $out"
    rm -rf "$work/verify"
  fi

  # The installed daemon accepts the installed configuration.
  if out=$("$dest$prefix/bin/multitouchd" --config "$dest/etc/multitouchd/multitouchd.toml" --check-config 2>&1) \
    && grep -q "configuration OK" <<< "$out"; then
    pass "multitouchd --check-config accepts the installed file"
  else
    fail "multitouchd --check-config: $out"
  fi

  # Reinstall over an edited configuration: it stays, the new defaults go beside it.
  echo '# edited by the administrator' >> "$dest/etc/multitouchd/multitouchd.toml"
  make -s install PREFIX="$prefix" DESTDIR="$dest" BUILD_DIR="$BUILD_DIR" > "$work/install.log" 2>&1 || fail "second make install"
  grep -q '# edited by the administrator' "$dest/etc/multitouchd/multitouchd.toml" \
    && pass "reinstall keeps the edited configuration" || fail "reinstall overwrote the configuration"
  cmp -s config/multitouchd.toml "$dest/etc/multitouchd/multitouchd.toml.default" \
    && pass "reinstall writes multitouchd.toml.default" || fail "no multitouchd.toml.default"

  # Uninstall: everything goes except the edited configuration (and the group files sysusers wrote).
  make -s uninstall PREFIX="$prefix" DESTDIR="$dest" > "$work/uninstall.log" 2>&1 || fail "make uninstall"
  left=$(cd "$dest" && find . -type f | sort | grep -v -E '^\./etc/(group|gshadow|passwd|shadow|\.pwd\.lock)-?$' || true)
  if [ "$left" = "./etc/multitouchd/multitouchd.toml" ]; then
    pass "uninstall removes everything but the edited configuration"
  else
    fail "after uninstall these remain: $(echo $left)"
  fi
  grep -q "kept $dest/etc/multitouchd/multitouchd.toml" "$work/uninstall.log" \
    && pass "uninstall says it kept the edited configuration" || fail "uninstall said: $(cat "$work/uninstall.log")"
  # An unedited configuration is removed with the rest.
  make -s install PREFIX="$prefix" DESTDIR="$dest.2" BUILD_DIR="$BUILD_DIR" > /dev/null 2>&1 || fail "install into $dest.2"
  make -s uninstall PREFIX="$prefix" DESTDIR="$dest.2" > /dev/null 2>&1 || fail "uninstall from $dest.2"
  left=$(cd "$dest.2" && find . -type f | sort)
  [ -z "$left" ] && pass "uninstall of an unedited install leaves no files" || fail "left behind: $(echo $left)"
done

if [ $failures -gt 0 ]; then
  echo "install-check: $failures failure(s)"
  exit 1
fi
echo "install-check: all checks passed"
