#!/usr/bin/env bash
# Run one workload under several lock schemes and task counts into a
# results folder, then compare them (the first scheme is the base).
#
#   scripts/sweep.sh [-w WORKLOAD] [-s "rwsem range range-full pervma spf"]
#                    [-t TASKS] [-o DIR] [-- extra 'vmsim run' options]
#
# TASKS defaults to 1 to the number of CPUs (at least 1,2), so that the
# plot has a line, not a point. Writes DIR/<scheme>.json and
# DIR/compare.txt, prints the comparison, and (with gnuplot) draws
# DIR/plot.png.
set -euo pipefail
cd "$(dirname "$0")/.."
ncpu=$(nproc)
workload=pft schemes="rwsem range range-full pervma spf" out=
tasks=$([ "$ncpu" -ge 2 ] && echo "1-$ncpu" || echo "1,2")
while getopts "w:s:t:o:h" opt; do
	case $opt in
	w) workload=$OPTARG ;;
	s) schemes=$OPTARG ;;
	t) tasks=$OPTARG ;;
	o) out=$OPTARG ;;
	*) sed -n '2,12p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
out=${out:-results/sweep-$workload-$(date +%Y%m%d-%H%M%S)}
vmsim=${VMSIM:-./build/vmsim}
[ -x "$vmsim" ] || scripts/build.sh
mkdir -p "$out"
files=()
for s in $schemes; do
	echo "sweep: $workload under $s, tasks $tasks" >&2
	"$vmsim" run --workload "$workload" --lock "$s" --tasks "$tasks" \
		--json "$out/$s.json" --force --quiet "$@" >"$out/$s.txt"
	files+=("$out/$s.json")
done
"$vmsim" compare "${files[@]}" | tee "$out/compare.txt"
if command -v gnuplot >/dev/null; then
	VMSIM=$vmsim scripts/plot.sh -o "$out/plot.png" "${files[@]}"
fi
echo "sweep: results in $out" >&2
