#!/usr/bin/env bash
# The CI regression gate, a thin wrapper over `vmsim gate` (docs/gate.md).
#
#   scripts/ci-regression.sh BASELINE.json [PCT] [-- candidate run options]
#       the stored baseline is the base; this build runs its recorded run
#       (every option it records) --rounds times, pooled, and is gated
#   scripts/ci-regression.sh --base OLD/vmsim [gate options] -- RUN OPTIONS
#       two builds run alternately, the same options (any `vmsim gate`
#       options pass through as they are)
#
# PCT is the minimum effect (default: the gate's, 5%). The last line is
# the verdict — PASS, REGRESSION: …, CANNOT JUDGE: … — and the exit status
# 0, 1 or 2. VMSIM names this build's binary (default build/vmsim).
set -euo pipefail
cd "$(dirname "$0")/.."
vmsim=${VMSIM:-./build/vmsim}
[ $# -gt 0 ] || { echo "usage: scripts/ci-regression.sh BASELINE.json [PCT] | --base OLD [gate options] -- RUN OPTIONS" >&2; exit 2; }
case $1 in
-*) exec "$vmsim" gate "$@" ;;
esac
base=$1
shift
# VMSIM_GATE_ARGS: gate options before the rest (--allow-disturbed on a
# runner known to be shared; word-split).
# shellcheck disable=SC2206
args=(${VMSIM_GATE_ARGS:-} --baseline "$base")
if [ $# -gt 0 ] && [ "$1" != "--" ]; then args+=(--fail-on-regression "$1"); shift; fi
if [ "${1:-}" = "--" ]; then
	shift
	[ $# -eq 0 ] || args+=(--candidate-opts "$*")
fi
exec "$vmsim" gate "${args[@]}"
