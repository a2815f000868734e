#!/usr/bin/env bash
# Builds the package and its tests with a sanitizer in a scratch path of its own and runs swift test
# (docs/FUZZING.md, "Sanitizers"). The end-to-end tests start the daemon built the same way, so it runs
# under the sanitizer too. Any report fails the run.
#
#   bash scripts/sanitized-tests.sh address|thread [FILTER]   FILTER: swift test --filter (a regex)
set -uo pipefail
cd "$(dirname "$0")/.."
sanitizer=${1:?usage: scripts/sanitized-tests.sh address|thread [FILTER]}
filter=${2:-}
scratch=.build/sanitizer-$sanitizer

# Leak checking is off: the Swift runtime keeps metadata caches for the life of the process, which
# LeakSanitizer reports at exit. Memory errors and races stop the process at the first report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:halt_on_error=1:abort_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:abort_on_error=1}

swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" || exit 1
options=()
[ -n "$filter" ] && options=(--filter "$filter")
# Two end-to-end tests measure what a sanitizer changes, so they run only in the plain `swift test`
# stage: the daemon's resident memory (the sanitizer's allocator keeps freed memory in quarantine),
# and exact streams at 50x replay speed to readers the sanitizer slows enough to fall behind.
skips=(--skip 'aClientThatNeverReadsIsBoundedAndOthersAreUnaffected|severalClientsReceiveExactlyTheReplayOutputDespiteBadNeighbours')
swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "${skips[@]}" "${options[@]}"
