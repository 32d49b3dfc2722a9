#!/usr/bin/env bash
# The main job: install what is needed, build, and compare the lock
# schemes on three workloads, rwsem the base of each (results go to
# results/demo/, one results directory a workload, one file a scheme):
#  1. fault_vs_mmap, the workload that separates them: one task faulting
#     and zapping its own VMAs while one writer maps, populates,
#     mprotects and unmaps others;
#  2. pft (mmtests' page fault test) at 1 and 2 tasks with no writers
#     (none is the simulator's own overhead), beside the host kernel
#     itself (kernel: the same workload natively, its own locks);
#  3. a real program: the recorded `sort --parallel=2` trace shipped in
#     tests/data/traces, replayed under four schemes and the host kernel.
# Where the host kernel is a column, a table after the verdicts says how
# far each model is from it: its rate over the kernel's, and its scaling
# from 1 to 2 tasks against the kernel's.
# In each run the schemes are interleaved iteration by iteration. Each
# run prints its header, its warnings and one verdict line per scheme
# (--verdicts: the difference of each rate from rwsem and what the
# significance test and the samples' spread make of it); the full
# tables are `vmsim compare results/demo/WORKLOAD/`, and each run gets
# an HTML report beside it (results/demo/WORKLOAD.html: vmsim report).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
mkdir -p results/demo

./build/vmsim run --workload fault_vs_mmap --lock rwsem,range,range-full,pervma,spf \
	--tasks 1 --writers 1 --iterations 5 --mem 16M \
	--json results/demo/fault_vs_mmap/ --force --quiet --verdicts
echo
./build/vmsim run --workload pft --lock rwsem,range,range-full,pervma,spf,none,kernel \
	--tasks 1,2 --iterations 3 --mem 16M --json results/demo/pft/ \
	--force --quiet --verdicts
echo
./build/vmsim run --workload replay --trace tests/data/traces/sort.trace \
	--lock rwsem,range,pervma,spf,kernel --iterations 3 --json results/demo/replay/ \
	--force --quiet --verdicts
echo
for w in fault_vs_mmap pft replay; do
	./build/vmsim report -f -o "results/demo/$w.html" "results/demo/$w/"
done
echo "tables: vmsim compare results/demo/{fault_vs_mmap,pft,replay}/"
echo "reports: results/demo/{fault_vs_mmap,pft,replay}.html (open in a browser)"
