#!/usr/bin/env bash
# The main job: install what is needed, build, and compare the lock
# schemes on the workload that separates them, fault_vs_mmap: one task
# faulting and zapping its own VMAs while one writer maps, populates,
# mprotects and unmaps others. Prints the comparison table (rwsem is the
# base column); results go to results/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
out=results/demo
mkdir -p "$out"
files=()
for lock in rwsem range range-full pervma; do
	echo "demo: fault_vs_mmap under $lock ..." >&2
	./build/vmsim run --workload fault_vs_mmap --lock "$lock" --tasks 1 \
		--writers 1 --iterations 5 --mem 16M --json "$out/$lock.json" \
		--force --quiet >"$out/$lock.txt"
	files+=("$out/$lock.json")
done
./build/vmsim compare "${files[@]}" | sed -n '1,/^Lock statistics/p' | head -n -1
./build/vmsim compare "${files[@]}" | grep -E '^(contended|wait-ms|counter) ' || true
