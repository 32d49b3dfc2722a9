#!/usr/bin/env bash
# The main job: install what is needed, build, and run a short comparison
# of the lock schemes on the default workload (pft, 1..CPUs tasks),
# printing each scheme's summary. Results go to results/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
out=results/demo
mkdir -p "$out"
for lock in rwsem none; do
	./build/vmsim run --lock "$lock" --workload pft --iterations 5 \
		--mem 64M --json "$out/$lock.json" --force --quiet
	echo
done
