#!/usr/bin/env bash
# The main job: install what is needed, build, and compare the lock
# schemes, printing the tables (rwsem is the base column; results go to
# results/demo/):
#  1. fault_vs_mmap, the workload that separates them: one task faulting
#     and zapping its own VMAs while one writer maps, populates,
#     mprotects and unmaps others; each scheme's lock statistics, then
#     the full comparison;
#  2. pft (mmtests' page fault test) with no writers: the mean rows only
#     (none is the simulator's own overhead);
#  3. a real program: the recorded `sort --parallel=2` trace shipped in
#     tests/data/traces, replayed under the four schemes (mean rows).
# In each run the schemes are interleaved iteration by iteration. After
# each table, one sentence per primary metric says which differences its
# own significance markers (Welch, alpha 0.05) call real, and which are
# within the run's noise — read from `vmsim compare --format json`, so
# that the words never claim more than the numbers. Each run is a results
# directory (results/demo/WORKLOAD/, one file a scheme) and gets an HTML
# report beside it (results/demo/WORKLOAD.html: vmsim report).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
mkdir -p results/demo

# summarize WORKLOAD RESULT.json... : the findings of the comparison.
read -r -d '' findings <<'PY' || true
import json, sys
workload, first = sys.argv[1], sys.argv[2]
cmp = json.load(sys.stdin)
primary = {m for m, d in json.load(open(first))["metrics"].items() if d.get("primary")}
labels = [c["label"] for c in cmp["columns"]]
for row in cmp["rows"]:
    if row["section"] != "metric" or row["stat"] not in ("Hmean", "Amean"):
        continue
    metric, tasks = row["key"].rsplit("-", 1)
    if metric not in primary:
        continue
    real, noise = [], []
    for label, d, sig in zip(labels[1:], row["diff_pct"][1:], row["significant"][1:]):
        if d is None:
            noise.append(f"{label} (n/a)")
        elif sig:
            real.append(f"{label} {d:+.1f}%")
        else:
            noise.append(f"{label} {d:+.1f}%")
    said = f"{workload}, {metric} at {tasks} task{'s' if tasks != '1' else ''} against {labels[0]}: "
    said += ("significantly different: " + ", ".join(real)) if real else "no significant difference"
    if noise:
        said += ("; within this run's noise: " if real else " (") + ", ".join(noise) + ("" if real else ")")
    print(said + ".")
PY
summarize() {
	local workload=$1; shift
	local dir=${*: -1}
	./build/vmsim compare --format json "$@" 2>/dev/null |
		python3 -c "$findings" "$workload" "$dir/rwsem.json"
}

schemes="rwsem range range-full pervma spf"
./build/vmsim run --workload fault_vs_mmap --lock "${schemes// /,}" \
	--tasks 1 --writers 1 --iterations 5 --mem 16M \
	--json results/demo/fault_vs_mmap/ --force --quiet
echo
summarize fault_vs_mmap --baseline rwsem results/demo/fault_vs_mmap/
echo
schemes="rwsem range range-full pervma spf none"
./build/vmsim run --workload pft --lock "${schemes// /,}" \
	--tasks 1,2 --iterations 3 --mem 16M --json results/demo/pft/ \
	--force --quiet --brief | grep -E '^(vmsim|  |$|Hmean|Amean|\*x|  +rwsem)'
echo
summarize pft --baseline rwsem results/demo/pft/
echo
schemes="rwsem range pervma spf"
./build/vmsim run --workload replay --trace tests/data/traces/sort.trace \
	--lock "${schemes// /,}" --iterations 3 --json results/demo/replay/ \
	--force --quiet --brief | grep -E '^(vmsim|replay|  |$|Hmean|Amean|\*x|  +rwsem)'
echo
summarize replay --baseline rwsem results/demo/replay/
echo
for w in fault_vs_mmap pft replay; do
	./build/vmsim report -f --baseline rwsem -o "results/demo/$w.html" \
		"results/demo/$w/"
done
echo "reports: results/demo/{fault_vs_mmap,pft,replay}.html (open in a browser)"
