#!/usr/bin/env bash
# A/A runs idle and with the other CPUs kept busy: what the verdicts'
# machine rule (resfile/busy.h, docs/gate.md) was chosen by. N runs of
# the README's first workflow idle, then N with a busy loop on each CPU
# but one, then the demo's pft R times each way; each run's verdicts in
# OUT/MODE-I.txt, its results in OUT/MODE-I/. Needs build/vmsim.
#   scripts/aa-busy.sh [N [R [OUT]]]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10} r=${2:-3} out=${3:-results/aa-busy}
vmsim=./build/vmsim
[ -x "$vmsim" ] || { echo "aa-busy: build first (scripts/build.sh)" >&2; exit 2; }
mkdir -p "$out"
loops=()
stop() { [ ${#loops[@]} -eq 0 ] || kill "${loops[@]}" 2>/dev/null || :; loops=(); }
trap stop EXIT
busy() {
	local k
	for ((k = 1; k < $(nproc); k++)); do
		sh -c 'while :; do :; done' &
		loops+=($!)
	done
	sleep 0.5
}
for mode in idle busy; do
	for i in $(seq 1 "$n"); do
		[ "$mode" = busy ] && busy
		"$vmsim" run -w fault_vs_mmap -l rwsem,range,pervma -t 1 --writers 1 \
			-i 6 -o "$out/$mode-$i/" --verdicts --force >"$out/$mode-$i.txt" 2>&1 || :
		stop
		sleep 1
	done
	for i in $(seq 1 "$r"); do
		[ "$mode" = busy ] && busy
		"$vmsim" run -w pft -l rwsem,range,range-full,pervma,spf,none,kernel \
			-t 1,2 -i 3 -m 16M -o "$out/pft-$mode-$i/" --force --quiet \
			--verdicts >"$out/pft-$mode-$i.txt" 2>&1 || :
		stop
		sleep 1
	done
	echo "$mode: $(cat "$out"/$mode-*.txt "$out"/pft-$mode-*.txt | grep -c '(significant') lines with a significant verdict," \
		"$(cat "$out"/$mode-*.txt "$out"/pft-$mode-*.txt | grep -o '(disturbed' | wc -l) disturbed"
done
