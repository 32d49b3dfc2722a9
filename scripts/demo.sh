#!/usr/bin/env bash
# The main job: install what is needed, build, and compare the lock
# schemes on the workload that separates them, fault_vs_mmap: one task
# faulting and zapping its own VMAs while one writer maps, populates,
# mprotects and unmaps others. The four schemes run interleaved in one
# invocation; it prints each scheme's lock statistics and then the
# comparison table (rwsem is the base column). Results: results/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
mkdir -p results/demo
exec ./build/vmsim run --workload fault_vs_mmap \
	--lock rwsem,range,range-full,pervma --tasks 1 --writers 1 \
	--iterations 5 --mem 16M --json results/demo/fault_vs_mmap.json \
	--force --quiet
