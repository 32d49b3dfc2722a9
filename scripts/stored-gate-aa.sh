#!/usr/bin/env bash
# The stored-runs gate's false-alarm rate on this machine: N A/A pairs of
# folders of K runs each (every run a separate process, the same build
# and options, A and B alternating run by run), each pair gated with
# `vmsim compare --fail-on-regression A/ B/`; and the same N pairs with
# one run a side (the first of each folder). Prints each pair's verdict
# and the counts of PASS, REGRESSION (a false alarm) and CANNOT JUDGE,
# with the smallest detectable worsening the passes and refusals quoted.
#
#   scripts/stored-gate-aa.sh N K [-- vmsim run options]
#   e.g. scripts/stored-gate-aa.sh 20 3 -- -w pft -t 1,2 -i 5 -m 64M
#
# VMSIM names the binary (default build/vmsim); KEEP=DIR keeps the runs.
# Exit 0, or 1 if a run failed.
set -euo pipefail
n=${1:?usage: scripts/stored-gate-aa.sh N K [-- vmsim run options]}
k=${2:?usage: scripts/stored-gate-aa.sh N K [-- vmsim run options]}
shift 2
[ "${1:-}" = "--" ] && shift
cd "$(dirname "$0")/.."
vmsim=${VMSIM:-build/vmsim}
if [ -n "${KEEP:-}" ]; then
	dir=$KEEP
	mkdir "$dir"
else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi
for p in $(seq 1 "$n"); do
	mkdir "$dir/$p-a" "$dir/$p-b"
	for r in $(seq 1 "$k"); do
		for side in a b; do
			if ! "$vmsim" run "$@" -q -o "$dir/$p-$side/run$r.json" \
				>"$dir/out" 2>&1; then
				echo "stored-gate-aa: pair $p, run $r of $side failed:" >&2
				cat "$dir/out" >&2
				exit 1
			fi
		done
	done
done
verdicts() {    # label, then one "A B" pair of paths a line
	local pass=0 reg=0 cj=0 v
	while read -r a b; do
		v=$("$vmsim" compare --fail-on-regression "$a" "$b" 2>/dev/null | tail -n1) || true
		case $v in
		PASS*) pass=$((pass + 1)) ;;
		REGRESSION*) reg=$((reg + 1)) ;;
		*) cj=$((cj + 1)) ;;
		esac
		echo "  $v" | cut -c1-200
	done
	echo "$1: $pass PASS, $reg REGRESSION (false alarms), $cj CANNOT JUDGE"
}
for p in $(seq 1 "$n"); do echo "$dir/$p-a $dir/$p-b"; done |
	verdicts "$n A/A pairs of $k runs a side"
for p in $(seq 1 "$n"); do echo "$dir/$p-a/run1.json $dir/$p-b/run1.json"; done |
	verdicts "$n A/A pairs of one run a side"
