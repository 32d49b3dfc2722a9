#!/usr/bin/env bash
# scripts/plot.sh draws a PNG from result files: it exists, is a PNG, and
# is not trivially small. Skips (77) only when gnuplot is not installed.
set -u
root=$1 vmsim=$2
command -v gnuplot >/dev/null || { echo "SKIP: no gnuplot"; exit 77; }
out=$(mktemp --suffix=.png)
trap 'rm -f "$out"' EXIT
data=$root/tests/data/compare
VMSIM=$vmsim bash "$root/scripts/plot.sh" -f -m faults/sec -o "$out" \
	"$data/base.json" "$data/worse.json" "$data/same.json" || exit 1
magic=$(head -c 8 "$out" | od -An -tx1 | tr -d ' \n')
size=$(stat -c %s "$out")
if [ "$magic" != 89504e470d0a1a0a ] || [ "$size" -le 10000 ]; then
	echo "plot: not a readable PNG (magic $magic, $size bytes)"
	exit 1
fi
# Never through a link, never over a file without -f.
d=$(mktemp -d)
trap 'rm -f "$out"; rm -rf "$d"' EXIT
echo keep >"$d/victim"
ln -s "$d/victim" "$d/link.png"
VMSIM=$vmsim bash "$root/scripts/plot.sh" -f -o "$d/link.png" "$data/base.json" 2>"$d/err"
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$d/victim")" = keep ] && grep -q 'link' "$d/err" ||
	{ echo "plot: wrote through a link (exit $rc): $(cat "$d/err")"; exit 1; }
echo keep >"$d/old.png"
VMSIM=$vmsim bash "$root/scripts/plot.sh" -o "$d/old.png" "$data/base.json" 2>"$d/err"
rc=$?
[ $rc -eq 2 ] && [ "$(cat "$d/old.png")" = keep ] && grep -q 'exists' "$d/err" ||
	{ echo "plot: replaced a file without -f (exit $rc): $(cat "$d/err")"; exit 1; }
[ -z "$(ls -A "$d" | grep '^\.plot-')" ] || { echo "plot: a temporary left behind"; exit 1; }
echo "plot: 3 passed, 0 failed"
