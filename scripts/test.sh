#!/usr/bin/env bash
# Sets up and runs every test of multitouchd: unit and end-to-end tests (swift test), the invariant
# check over the project's fixtures and ../shared/recordings, the feel report, the protocol schema over
# the golden files and the replays, `multitouchctl plot` from the command line, the fuzzers, the tests
# under AddressSanitizer (and ThreadSanitizer with MULTITOUCHD_TSAN=1), the Python and C client tests, multitouchctl's edges, the
# browser pages in headless Chromium, the short benchmarks, the Debian package (built, unpacked with
# dpkg into an empty root and run from there; MULTITOUCHD_DEB_CHROOT=1 adds an apt install into a
# debootstrap'ed Debian 12), the systemd unit checks, and the real-kernel checks in a QEMU guest.
# Prints one line per stage and a closing "N passed, N failed" line; exits non-zero when any stage
# fails.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

MULTITOUCHD_GUEST_DEPS=1 MULTITOUCHD_SERVICE_DEPS=1 MULTITOUCHD_BROWSER_DEPS=1 bash scripts/install-deps.sh || exit 1

passed=0
failed=0
failures=()
stage() {
  local name=$1
  shift
  echo "=== $name"
  local start=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    echo "=== $name: ok ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1))
    failures+=("$name")
    echo "=== $name: FAILED ($((SECONDS - start)) s)"
  fi
}

stage "format (changed files)" bash scripts/format-lint.sh
# Package.swift's dependencies equal each target's imports, only test targets reach MultitouchTestKit,
# and docs/architecture.md's module graph equals Package.swift (under a second, no build).
stage "imports and module graph" python3 scripts/check-imports.py
stage "build" swift build --build-tests
ctl="$(swift build --show-bin-path)/multitouchctl"
stage "swift test" swift test --skip-build
# Every command README.md, docs/ and the example configurations tell a user to run exists here (the
# program on PATH or a built one, multitouchctl's verbs among its subcommands; under a second).
stage "doc commands" python3 scripts/check-doc-commands.py "$(swift build --show-bin-path)"
# With noninterference (DESIGN.md invariant 11): each recording rehearsed with six programs, one an
# exclusive PIN pad over where a touch landed (3 seeded layouts for the fixtures, 2 for the shared
# recordings: CI's budget), once as it is and once with the pad's contacts deleted; every other
# program's bytes must be identical (docs/SECURITY.md).
stage "check fixtures" "$ctl" check --noninterference 3 checks/fixtures
# The routing invariants (one owner per touch, every delivered touch ends) with the example trio's
# overlapping regions (a map, a toolbar over it, an observer), over its recording and the fixtures.
stage "check with regions" "$ctl" check --regions clients/examples/regions/layout.json \
  clients/examples/regions/tap-and-pinch.evemu checks/fixtures
if [ -d ../shared/recordings ]; then
  stage "check shared recordings" "$ctl" check --noninterference 2 ../shared/recordings ../shared/recordings/evemu-devices
  stage "feel report" "$ctl" feel --recordings ../shared/recordings
  # Every contact's updates reach a predicting and a frame-aligned client, on every real recording
  # (docs/PREDICTION.md "Report rate kept"; --self-test: a dropped sample fails it).
  stage "report rate kept" bash -c 'python3 checks/prediction/report-rate.py --self-test && python3 checks/prediction/report-rate.py "$0" ../shared/recordings' "$ctl"
fi
# The schema against the Swift protocol (golden files both ways, enums), then every recording's replay.
stage "protocol schema" bash -c 'python3 protocol/check-golden.py && bash protocol/check-replays.sh "$0" checks/fixtures ../shared/recordings' "$ctl"
stage "plot CLI" bash checks/plot/cli-check.sh "$ctl"
# Hardening (docs/FUZZING.md): each fuzz harness for a bounded time (any crash, hang or memory blow-up
# fails), then the tests under AddressSanitizer in a scratch path of its own. ThreadSanitizer (a third
# full build, about 3 minutes) runs with MULTITOUCHD_TSAN=1: CI's 20-minute budget has no room for it.
stage "fuzz (15 s per harness)" bash scripts/fuzz.sh 15
stage "swift test (AddressSanitizer)" bash scripts/sanitized-tests.sh address
if [ "${MULTITOUCHD_TSAN:-0}" = 1 ]; then
  stage "swift test (ThreadSanitizer)" bash scripts/sanitized-tests.sh thread
else
  echo "=== swift test (ThreadSanitizer): not run (MULTITOUCHD_TSAN=1 runs it); not counted as passed"
fi
stage "python client" python3 clients/python/test_client.py
stage "python protocol goldens" python3 clients/python/test_protocol_golden.py
stage "c client" python3 clients/c/test_c_client.py
# The JavaScript client under Node 20 (its WebSocket is behind --experimental-websocket) against a real
# daemon and bridge: a refused token is reported, regions work (about 5 s).
stage "js client (node)" node --experimental-websocket clients/js/test_client.mjs "$(swift build --show-bin-path)"
stage "multitouchctl edges" python3 checks/cli/test_cli.py
stage "side-by-side recordings" python3 checks/bench/test_side_by_side_recordings.py
# TUIO output read by Qt's TuioTouch plugin (qml, offscreen) and Kivy's TUIO provider; two Qt programs
# on two region targets (docs/TUIO.md).
stage "tuio: Qt and Kivy clients" bash checks/tuio/run.sh "$(swift build --show-bin-path)"
# docs/KIOSK.md end to end: the real daemon, the document's configuration and recording, the map,
# PIN pad and shell on the Python client and a Qt app over TUIO; what each received (about 15 s).
stage "kiosk (docs/KIOSK.md)" python3 checks/kiosk/kiosk_check.py "$(swift build --show-bin-path)"
# Headless Chromium loads the live view (view --replay) and the JS demo (bridge); screenshots under
# .build/web-check/ (the stage prints their paths).
stage "browser pages" python3 checks/web/browser-check.py "$(swift build --show-bin-path)"
stage "benchmarks (short: runs and reports, no thresholds)" bash scripts/bench.sh --short
stage "debian package" bash -c 'DEB_COMPRESSION=gzip bash packaging/deb/build.sh && bash packaging/deb/check.sh'
# The daemon's steady state allocates nothing (docs/PERFORMANCE.md): the frame path, device read to
# socket write, with 1 and 8 clients over the generated recordings, allocations counted by a preloaded
# malloc counter in the release build the package stage made (a count, not a time; about 15 s).
stage "allocations per frame (release)" bash checks/bench/allocations.sh
stage "systemd units" bash checks/service/verify-units.sh
stage "make install" bash checks/service/install-check.sh
stage "guest: live devices" bash checks/guest/run-checks.sh
# Real HID devices through uhid and hid-multitouch (docs/DEVICES.md, "Device matrix"): the fixed CI
# subset of checks/devices/ci-devices.txt; all 93 with `bash checks/devices/run-matrix.sh --all`.
if [ -f ../shared/hid-devices/devices.json ]; then
  stage "guest: device matrix (CI subset)" bash checks/devices/run-matrix.sh --ci
fi
# The service as installed from the .deb the "debian package" stage built (dpkg -i, maintainer scripts
# run) under the guest's systemd: a live uinput device and a replay drop-in, socket activation, the
# sandbox, reload, watchdog, stop. The same checks without systemd (MTD_MODES="live replay", about
# 2 more minutes) run with MULTITOUCHD_SERVICE_MODES="live replay": CI's 20 minutes have no room.
stage "guest: service" env MTD_DEB="$(ls -t dist/multitouchd_*.deb 2> /dev/null | head -1)" \
  MTD_MODES="${MULTITOUCHD_SERVICE_MODES:-}" bash checks/service/guest-service-check.sh
stage "guest: side by side (short: runs and reports)" bash checks/bench/side-by-side.sh --short

echo
for f in "${failures[@]}"; do echo "failed stage: $f"; done
echo "stages: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
