#!/usr/bin/env bash
# Checks the formatting of the Swift files a change touches against the committed .swift-format
# (swift format 6.3.1 from the toolchain, in --strict mode: any finding fails).
#
#   bash scripts/format-lint.sh [BASE]
#
# The change is BASE..HEAD plus uncommitted edits. BASE defaults to $MULTITOUCHD_FORMAT_BASE, else the
# merge base with origin/main (or main) when HEAD is not on it, else HEAD~1 (the last commit; for a
# merge commit, everything the merged branch brought). Files nobody touched are left alone, so the
# formatting of the tree improves file by file. `swift format -i --configuration .swift-format FILE`
# fixes a file.
set -uo pipefail
cd "$(dirname "$0")/.."

base=${1:-${MULTITOUCHD_FORMAT_BASE:-}}
if [ -z "$base" ]; then
  for ref in origin/main main; do
    if git rev-parse -q --verify "$ref" > /dev/null; then
      candidate=$(git merge-base HEAD "$ref" 2> /dev/null || true)
      if [ -n "$candidate" ] && [ "$candidate" != "$(git rev-parse HEAD)" ]; then base=$candidate; fi
      break
    fi
  done
fi
if [ -z "$base" ]; then
  base=$(git rev-parse -q --verify HEAD~1 || true)
fi
if [ -z "$base" ]; then
  echo "format-lint: no base commit (a single-commit clone); nothing to compare"
  exit 0
fi

mapfile -t files < <({ git diff --name-only --diff-filter=ACMR "$base" HEAD; git diff --name-only --diff-filter=ACMR HEAD; } \
  | grep '\.swift$' | sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done)
if [ ${#files[@]} -eq 0 ]; then
  echo "format-lint: no Swift file changed since $(git rev-parse --short "$base")"
  exit 0
fi
echo "format-lint: ${#files[@]} Swift file(s) changed since $(git rev-parse --short "$base")"
swift format lint --strict --configuration .swift-format "${files[@]}"
status=$?
if [ $status -ne 0 ]; then
  echo "format-lint: fix with: swift format -i --configuration .swift-format FILE..." >&2
fi
exit $status
