#!/usr/bin/env bash
# Draw one metric against the task count, one line per result file
# (scheme), with min-max error bars, as a PNG (gnuplot). Each scheme's
# points are shifted a little sideways so that the bars do not overlap.
#
#   scripts/plot.sh [-m METRIC] [-o OUT.png] [-f] RESULT.json [RESULT.json ...]
#
# METRIC defaults to the first metric of the first file (e.g. faults/sec);
# OUT.png to the first file's name with .png (beside it). As vmsim's own
# files: an existing OUT.png is replaced only with -f, a link or anything
# but a regular file never, and the picture is drawn beside it and
# renamed into place whole.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
metric= png= force=
while getopts "m:o:fh" opt; do
	case $opt in
	m) metric=$OPTARG ;;
	o) png=$OPTARG ;;
	f) force=1 ;;
	*) sed -n '2,13p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "plot.sh: give at least one result file" >&2; exit 2; }
png=${png:-${1%.json}.png}
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot is not installed (scripts/install-deps.sh)" >&2; exit 2; }
if [ -L "$png" ] || { [ -e "$png" ] && [ ! -f "$png" ]; }; then
	echo "plot.sh: $png is a link or not a regular file: not written through" >&2
	exit 2
fi
[ ! -e "$png" ] || [ -n "$force" ] ||
	{ echo "plot.sh: $png exists (-f to replace it)" >&2; exit 2; }
vmsim=${VMSIM:-$here/build/vmsim}
data=$(mktemp)
pic=$(mktemp "$(dirname "$png")/.plot-XXXXXX.png")
trap 'rm -f "$data" "$pic"' EXIT
"$vmsim" compare --format gnuplot ${metric:+--metric "$metric"} "$@" >"$data"
nsets=$(grep -c '^"' "$data")
name=$(sed -n 's/^# metric: \([^,]*\), \(.*\) is better.*/\1 (\2 is better)/p;T;q' "$data")
workload=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["workload"])' "$1" 2>/dev/null || echo "")
gnuplot <<GP
set terminal pngcairo size 960,600 font ",11"
set output "$pic"
set title "vmsim: ${workload} — ${name}"
set xlabel "tasks"
set ylabel "${name}"
set key top left box opaque Left reverse width 1
set grid
set xtics 1
set offsets 0.3, 0.3, 0, 0
# Scheme i at x + (i - (n-1)/2) * 0.06: side by side around each count.
dx(i) = (i - ($nsets - 1) / 2.0) * 0.06
plot for [i=0:$((nsets - 1))] "$data" index i using (\$1 + dx(i)):2:3:4 \
	with yerrorlines lw 2 pt 7 title columnheader(1)
GP
mv -f -T "$pic" "$png"      # a rename: replaces a name, follows no link
echo "plot.sh: wrote $png" >&2
