#!/usr/bin/env bash
# scripts/plot.sh draws a PNG from result files: it exists, is a PNG, and
# is not trivially small. Skips (77) only when gnuplot is not installed.
set -u
root=$1 vmsim=$2
command -v gnuplot >/dev/null || { echo "SKIP: no gnuplot"; exit 77; }
out=$(mktemp --suffix=.png)
trap 'rm -f "$out"' EXIT
data=$root/tests/data/compare
VMSIM=$vmsim bash "$root/scripts/plot.sh" -m faults/sec -o "$out" \
	"$data/base.json" "$data/worse.json" "$data/same.json" || exit 1
magic=$(head -c 8 "$out" | od -An -tx1 | tr -d ' \n')
size=$(stat -c %s "$out")
if [ "$magic" = 89504e470d0a1a0a ] && [ "$size" -gt 10000 ]; then
	echo "plot: 1 passed, 0 failed"
	exit 0
fi
echo "plot: not a readable PNG (magic $magic, $size bytes)"
exit 1
