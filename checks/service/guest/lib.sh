# Shared by the in-guest service checks (service-inner.sh, systemd-probe.sh); sourced, not run.
# Set `check` (the line prefix) before sourcing. Provides the failure count and the helpers.
failures=0
pass() { echo "$check: ok: $*"; }
fail() { echo "$check: FAIL: $*"; failures=$((failures + 1)); }
# wait_for SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds (a deadline for a hang, not a timing check).
wait_for() {
  local end=$((SECONDS + $1)); shift
  until "$@"; do
    [ $SECONDS -lt $end ] || return 1
    sleep 0.2
  done
}
