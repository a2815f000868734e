#!/usr/bin/env bash
# Validates `multitouchctl replay --json` of every recording in the given files and directories
# against protocol/multitouchd.schema.json (the replay prints exactly what a subscriber receives), and
# of the .evemu/.yml ones also as a frame-aligned subscriber receives them (--frame-period-us).
#   bash protocol/check-replays.sh [-o LINES] MULTITOUCHCTL PATH...
# -o keeps the replayed lines in LINES (the C client's test parses them too).
set -euo pipefail
keep=""
if [ "${1:-}" = -o ]; then keep=$2; shift 2; fi
ctl=$1
shift
here=$(dirname "$0")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
n=0
for path in "$@"; do
  [ -e "$path" ] || continue
  # Directories are searched with their sub-folders (../shared/recordings/evemu-devices/*/).
  if [ -d "$path" ]; then mapfile -t files < <(find "$path" -type f | LC_ALL=C sort); else files=("$path"); fi
  for f in "${files[@]}"; do
    case $f in
      *.evemu | *.yml | *.yaml)
        "$ctl" replay --json "$f" >> "$out" && n=$((n + 1))
        # What a frame-aligned client receives (coalesced samples, resampled frames) is checked too.
        [ -n "$keep" ] || "$ctl" replay --json --frame-period-us 16667 --frame-phase-us 4000 "$f" >> "$out"
        ;;
      *.events)
        # An events-only file takes the .desc whose name is the longest prefix of its own (as
        # `multitouchctl check DIR` pairs them); one with its own header needs none.
        desc=""
        # A file that starts with its own description (N:, I:, ... lines) takes no .desc.
        grep -qm1 '^N:' "$f" && desc=none
        [ "$desc" = none ] || for d in "$(dirname "$f")"/*.desc; do
          [ -e "$d" ] || continue
          stem=${d%.desc}
          case $f in "$stem"*) [ ${#d} -gt ${#desc} ] && desc=$d ;; esac
        done
        if [ -n "$desc" ] && [ "$desc" != none ]; then "$ctl" replay --json --desc "$desc" "$f" >> "$out"; else "$ctl" replay --json "$f" >> "$out"; fi
        n=$((n + 1))
        ;;
    esac
  done
done
echo "check-replays: $n recordings replayed"
[ -z "$keep" ] || cp "$out" "$keep"
python3 "$here/validate.py" "$out"
