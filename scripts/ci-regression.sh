#!/usr/bin/env bash
# The intended CI use: run a workload, compare it with a stored baseline
# result, and fail the job when a primary metric is significantly worse.
#
#   scripts/ci-regression.sh BASELINE.json [PCT] [-- extra 'vmsim run' options]
#
# The run repeats the baseline's scheme and workload. PCT (default 5) is
# how much worse, significantly (Welch, alpha 0.05), fails the gate.
# Exit: 0 pass, 1 regression, 2 usage or unreadable baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: scripts/ci-regression.sh BASELINE.json [PCT] [-- run options]}
shift
pct=5
if [ $# -gt 0 ] && [ "$1" != "--" ]; then pct=$1; shift; fi
[ "${1:-}" = "--" ] && shift
vmsim=${VMSIM:-./build/vmsim}
read -r scheme workload < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["scheme"], r["workload"])' "$base")
new=$(mktemp --suffix=.json)
trap 'rm -f "$new"' EXIT
"$vmsim" run --lock "$scheme" --workload "$workload" --json "$new" --force --quiet "$@" >/dev/null
"$vmsim" compare --label baseline --label candidate --fail-on-regression="$pct" "$base" "$new"
