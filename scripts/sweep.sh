#!/usr/bin/env bash
# Run one workload under several lock schemes and task counts into a
# results folder, then compare them (the first scheme is the base).
#
#   scripts/sweep.sh [-w WORKLOAD] [-s "rwsem range range-full pervma"]
#                    [-t TASKS] [-o DIR] [-- extra 'vmsim run' options]
#
# Writes DIR/<scheme>.json and DIR/compare.txt, and prints the comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
workload=pft schemes="rwsem range range-full pervma" tasks=max out=
while getopts "w:s:t:o:h" opt; do
	case $opt in
	w) workload=$OPTARG ;;
	s) schemes=$OPTARG ;;
	t) tasks=$OPTARG ;;
	o) out=$OPTARG ;;
	*) sed -n '2,9p' "$0"; exit 2 ;;
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
echo "sweep: results in $out" >&2
