#!/usr/bin/env bash
# Builds multitouch-fuzz with libFuzzer and AddressSanitizer and runs each fuzz harness for a bounded
# time on its seed corpus (docs/FUZZING.md). Fails when any harness crashes, hangs (an input slower than
# FUZZ_TIMEOUT seconds) or runs out of memory, and says where the input is and how to keep it as a
# regression. Prints the executions and coverage of each harness. The harnesses run side by side, as
# many at once as there are cores (FUZZ_JOBS=N sets it).
#
#   bash scripts/fuzz.sh [SECONDS] [HARNESS...]      default: 30 s for each harness in FuzzHarness.all
#
# The corpus each run grows is kept in .build/fuzz/work/<harness>/corpus, so local runs build on the
# previous ones; CI starts from the seeds every time.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${1:-30}
[ $# -gt 0 ] && shift
timeout=${FUZZ_TIMEOUT:-10}
scratch=.build/fuzz
work=$scratch/work

# swiftc keeps only the last -sanitize= option, and SwiftPM passes one per --sanitize: with
# "--sanitize=fuzzer --sanitize=address" Swift code gets no coverage at all. So SwiftPM is asked for the
# fuzzer (which also links libFuzzer and compiles executables as libraries), and the combined option
# comes last through -Xswiftc; C code compiled here gets AddressSanitizer through -Xcc (libyaml is
# Debian's shared library since issue 29, so the YAML harness covers the composer, not libyaml's scanner).
echo "fuzz: building multitouch-fuzz (release, libFuzzer + AddressSanitizer)"
swift build -c release --product multitouch-fuzz --scratch-path "$scratch" \
  --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=address -Xswiftc -DFUZZING || exit 1
fuzzer="$scratch/release/multitouch-fuzz"
# The same harnesses built normally: lists them and writes their seeds.
swift build --product multitouch-fuzz || exit 1
tool="$(swift build --show-bin-path)/multitouch-fuzz"

if [ $# -gt 0 ]; then harnesses=("$@"); else mapfile -t harnesses < <("$tool" list); fi

# One harness: a libFuzzer run whose exit status, executions and coverage go to $dir/status and $dir/log.
run_harness() {
  local harness=$1 dir=$work/$1
  local inputs=("$dir/corpus" "$dir/seeds")
  [ -d "checks/fuzz/$harness/regressions" ] && inputs+=("checks/fuzz/$harness/regressions")
  local options=(-max_total_time="$seconds" -max_len=65536 -timeout="$timeout" -rss_limit_mb=2048
    -print_final_stats=1 -artifact_prefix="$dir/artifacts/")
  [ -f "checks/fuzz/$harness/dictionary" ] && options+=(-dict="checks/fuzz/$harness/dictionary")
  MULTITOUCH_FUZZ_HARNESS=$harness "$fuzzer" "${options[@]}" "${inputs[@]}" > "$dir/log" 2>&1
  echo $? > "$dir/status"
}

# libFuzzer runs one process on one core: the harnesses run side by side, as many at once as there are
# cores (FUZZ_JOBS), each for the whole of its time.
jobs=${FUZZ_JOBS:-$(nproc)}
for harness in "${harnesses[@]}"; do
  dir=$work/$harness
  rm -rf "$dir/seeds" "$dir/artifacts" "$dir/status"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  "$tool" seeds "$harness" "$root" "$dir/seeds" || exit 1
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  echo "fuzz: $harness for $seconds s"
  run_harness "$harness" &
done
wait

failed=()
summary=()
for harness in "${harnesses[@]}"; do
  dir=$work/$harness
  status=$(cat "$dir/status" 2> /dev/null || echo "?")
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  coverage=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -1)
  summary+=("$harness: ${runs:-?} executions, ${coverage:-cov: ?}, corpus $(find "$dir/corpus" -type f | wc -l) files, exit $status")
  if [ "$status" != 0 ]; then
    failed+=("$harness")
    echo "--- fuzz: $harness FAILED (exit $status); the end of its log ($dir/log):"
    tail -40 "$dir/log"
    for artifact in "$dir"/artifacts/*; do
      [ -e "$artifact" ] || continue
      echo "--- input: $artifact"
      echo "    reproduce: MULTITOUCH_FUZZ_HARNESS=$harness $fuzzer $artifact"
      echo "    keep it:   cp $artifact checks/fuzz/$harness/regressions/<what-it-does>  (swift test replays it)"
    done
  fi
done

echo
printf 'fuzz: %s\n' "${summary[@]}"
[ ${#failed[@]} -eq 0 ] || { echo "fuzz: failed: ${failed[*]}"; exit 1; }
