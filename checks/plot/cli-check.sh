#!/usr/bin/env bash
# `multitouchctl plot` from the command line, as a person runs it: every fixture to SVG (twice, byte-
# identical) and PNG (PNG signature, the SVG's size), and each kind of bad input refused with a clear
# message and a non-zero status. The SVG's structure is tested in Tests/TouchPlotTests.
#
#   bash checks/plot/cli-check.sh [path/to/multitouchctl]
set -uo pipefail
cd "$(dirname "$0")/../.."
ctl=${1:-$(swift build --show-bin-path)/multitouchctl}
out=$(mktemp -d /tmp/multitouchd-plot-check.XXXXXX)
trap 'rm -rf "$out"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Width and height from the PNG's IHDR chunk, and from the SVG's root element.
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}'; }
svg_size() { head -c 400 "$1" | sed -n 's/.*<svg[^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1x\2/p'; }

for f in checks/fixtures/*.evemu; do
  name=$(basename "$f" .evemu)
  "$ctl" plot "$f" -o "$out/$name.svg" >/dev/null || { fail "$name: plot to SVG failed"; continue; }
  "$ctl" plot "$f" -o "$out/$name.again.svg" >/dev/null
  cmp -s "$out/$name.svg" "$out/$name.again.svg" || fail "$name: two runs wrote different SVG"
  "$ctl" plot "$f" -o "$out/$name.png" >/dev/null || { fail "$name: plot to PNG failed"; continue; }
  [ "$(head -c 8 "$out/$name.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$name: not a PNG"
  [ "$(png_size "$out/$name.png")" = "$(svg_size "$out/$name.svg")" ] ||
    fail "$name: PNG $(png_size "$out/$name.png") is not the SVG's $(svg_size "$out/$name.svg")"
done
echo "plotted $(ls "$out"/*.png | wc -l) fixtures to SVG and PNG"

# expect_error DESCRIPTION TEXT-IN-STDERR COMMAND...: fails unless the command fails saying TEXT.
expect_error() {
  local what=$1 text=$2
  shift 2
  if "$@" >"$out/stdout" 2>"$out/stderr"; then
    fail "$what: exited 0"
  elif ! grep -q -- "$text" "$out/stderr"; then
    fail "$what: stderr lacks \"$text\": $(cat "$out/stderr")"
  fi
}
tour=checks/fixtures/touchscreen-map-tour.evemu
expect_error "unknown extension" "must end in .svg or .png" "$ctl" plot "$tour" -o "$out/x.jpg"
expect_error "missing recording" "multitouchctl plot:" "$ctl" plot "$out/none.evemu" -o "$out/x.svg"
expect_error "garbage recording" "multitouchctl plot:" "$ctl" plot /etc/hostname -o "$out/x.svg"
expect_error "device out of range" "has 1 device(s)" "$ctl" plot "$tour" --device 2 -o "$out/x.svg"
expect_error "unwritable output" "cannot write" "$ctl" plot "$tour" -o /nonexistent/dir/x.svg
expect_error "no rsvg-convert" "librsvg2-bin" env PATH=/nonexistent "$ctl" plot "$tour" -o "$out/x.png"
[ -e "$out/x.png" ] && fail "a failed PNG left a file behind"
[ -n "$(find "$out" -name '.*.svg')" ] && fail "a temporary SVG was left behind"

[ "$failures" -eq 0 ] && echo "plot CLI checks passed" || echo "$failures plot CLI check(s) failed"
[ "$failures" -eq 0 ]
