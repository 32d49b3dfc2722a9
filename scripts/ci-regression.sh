#!/usr/bin/env bash
# The intended CI use: run a workload, compare it with a stored baseline
# result, and fail the job when a primary metric is significantly worse.
#
#   scripts/ci-regression.sh BASELINE.json [PCT] [-- extra 'vmsim run' options]
#
# The candidate repeats the baseline's scheme, workload, fault source and
# every run option recorded in it (tasks, iterations, mem, arena, wait,
# mode, ...), so that like is compared with like. PCT (default 5) is how
# much worse, significantly (Welch, alpha 0.05), fails the gate. Extra
# options that change what is measured make the gate refuse (exit 2), as
# does a baseline or candidate that is not a valid measurement, or a
# different machine or kernel (the compare line names the differences).
# Exit: 0 pass, 1 regression, 2 usage, invalid data or unlike runs.
set -euo pipefail
base=${1:?usage: scripts/ci-regression.sh BASELINE.json [PCT] [-- run options]}
shift
base=$(realpath -- "$base")
cd "$(dirname "$0")/.."
pct=5
if [ $# -gt 0 ] && [ "$1" != "--" ]; then pct=$1; shift; fi
[ "${1:-}" = "--" ] && shift
vmsim=${VMSIM:-./build/vmsim}
# The baseline's run, as vmsim run options (one per line).
if ! args=$(python3 - "$base" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    o = r["options"]
    out = ["--lock", r["scheme"], "--workload", r["workload"],
           "--fault-source", r.get("fault_source", "uffd")]
except (OSError, ValueError, KeyError, TypeError) as e:
    sys.exit(f"ci-regression: {sys.argv[1]}: not a vmsim result ({e})")
flags = {"iterations": "--iterations", "mem": "--mem", "arena": "--arena",
         "wait": "--wait", "batch": "--batch", "mode": "--mode",
         "warmup": "--warmup", "duration": "--duration",
         "interval_ms": "--interval", "cycles": "--cycles", "zap": "--zap",
         "handler_cpu": "--handler-cpu"}
for k, flag in flags.items():
    if k in o:
        out += [flag, str(o[k])]
if "tasks" in o:
    out += ["--tasks", ",".join(str(t) for t in o["tasks"])]
if o.get("handlers"):
    out += ["--handlers", str(o["handlers"])]
if o.get("numa", "default") != "default":
    out += ["--numa", o["numa"]]
if o.get("pin"):
    out += ["--pin"]
if r["workload"] == "fault_vs_mmap" and "writers" in o:
    out += ["--writers", str(o["writers"])]
print("\n".join(out))
PY
); then
	exit 2
fi
mapfile -t run_args <<<"$args"
new=$(mktemp -d)
trap 'rm -rf "$new"' EXIT
"$vmsim" run "${run_args[@]}" --json "$new/candidate.json" --quiet "$@" >/dev/null
"$vmsim" compare --label baseline --label candidate --fail-on-regression="$pct" \
	"$base" "$new/candidate.json"
