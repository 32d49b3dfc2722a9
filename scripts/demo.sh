#!/usr/bin/env bash
# The main job: install what is needed, build, and compare the lock
# schemes, printing the tables (rwsem is the base column; results go to
# results/demo/):
#  1. fault_vs_mmap, the workload that separates them: one task faulting
#     and zapping its own VMAs while one writer maps, populates,
#     mprotects and unmaps others; each scheme's lock statistics, then
#     the full comparison;
#  2. pft (mmtests' page fault test) with no writers: the mean rows only
#     (the schemes' fast paths cost the same; none is the simulator's own
#     overhead).
# In each run the schemes are interleaved iteration by iteration.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
mkdir -p results/demo
./build/vmsim run --workload fault_vs_mmap \
	--lock rwsem,range,range-full,pervma --tasks 1 --writers 1 \
	--iterations 5 --mem 16M --json results/demo/fault_vs_mmap.json \
	--force --quiet
echo
./build/vmsim run --workload pft --lock rwsem,range,range-full,pervma,none \
	--tasks 1,2 --iterations 3 --mem 16M --json results/demo/pft.json \
	--force --quiet --brief | grep -E '^(vmsim|  |$|Hmean|Amean|\*x|  +rwsem)'
