#!/usr/bin/env bash
# Run one workload under several lock schemes and task counts into a
# results directory, then compare them (the first scheme is the base).
#
#   scripts/sweep.sh [-w WORKLOAD] [-s "rwsem range range-full pervma spf"]
#                    [-t TASKS] [-o DIR] [-- extra 'vmsim run' options]
#
# One vmsim run with every scheme, so that they are interleaved
# iteration by iteration (the machine's drift lands on all of them);
# its warnings go to the terminal. TASKS defaults to 1 to the number of
# CPUs (at least 1,2), so that the plot has a line, not a point. Writes
# DIR/<scheme>.json, DIR/run.txt (the run's summary) and DIR/compare.txt,
# prints the comparison, and (with gnuplot) draws DIR/plot.png.
set -euo pipefail
set -C           # noclobber: DIR/run.txt and DIR/compare.txt are never replaced
root=$(cd "$(dirname "$0")/.." && pwd)   # DIR stays relative to the caller's
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
vmsim=${VMSIM:-$root/build/vmsim}
[ -x "$vmsim" ] || "$root/scripts/build.sh"
mkdir -p "$out"
base=${schemes%% *}
echo "sweep: $workload under ${schemes// /,}, interleaved, tasks $tasks" >&2
"$vmsim" run --workload "$workload" --lock "${schemes// /,}" --tasks "$tasks" \
	--json "$out/" --quiet "$@" >"$out/run.txt"
files=()
for s in $schemes; do files+=("$out/$s.json"); done
"$vmsim" compare --baseline "$base" "$out/" >"$out/compare.txt"
cat "$out/compare.txt"
if command -v gnuplot >/dev/null; then
	VMSIM=$vmsim "$root/scripts/plot.sh" -o "$out/plot.png" "${files[@]}"
fi
echo "sweep: results in $out" >&2
