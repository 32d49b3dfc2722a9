#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The 2025 per-VMA maps series, measured: pervma against rwsem with
# Linux 6.17's per-VMA reader (--maps-lock vma) and with the reader
# before it (--maps-lock mmap), in ROUNDS rounds whose order alternates.
# Each run interleaves rwsem and pervma iteration by iteration, so each
# ratio (pervma / rwsem) is taken side by side; the rounds give its
# median and range. The readers and their kind as for maps_reader.
#
#   scripts/maps-series.sh [ROUNDS] [TASKS] [-- more vmsim run options]
#
# e.g. on a larger machine: scripts/maps-series.sh 5 1,8,32 -- --readers 4
set -euo pipefail
rounds=${1:-5}
tasks=${2:-1}
shift $(( $# >= 2 ? 2 : $# ))
[ "${1:-}" = "--" ] && shift
vmsim=${VMSIM:-$(dirname "$0")/../build/vmsim}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "maps-series: bad round count '$rounds'" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for r in $(seq 1 "$rounds"); do
	if (( r % 2 )); then order="vma mmap"; else order="mmap vma"; fi
	for how in $order; do
		out="$dir/$how.$r/"
		"$vmsim" run -w maps_reader -l rwsem,pervma -t "$tasks" -i 3 \
			--maps-lock "$how" -o "$out" "$@" > "$dir/$how.$r.log" 2>&1 ||
			{ echo "maps-series: run $how $r failed:" >&2; tail -3 "$dir/$how.$r.log" >&2; exit 1; }
	done
done
python3 - "$dir" "$rounds" <<'PYEND'
import json, statistics, sys
d, rounds = sys.argv[1], int(sys.argv[2])
metrics = ["faults/sec", "writer-ops/sec", "writer-p99", "reader-vmas/sec"]
def hmean_or_mean(m, xs):
    return statistics.mean(xs) if m == "writer-p99" else statistics.harmonic_mean(xs)
for how in ("vma", "mmap"):
    ratios = {}
    for r in range(1, rounds + 1):
        res = {s: json.load(open(f"{d}/{how}.{r}/{s}.json"))["results"]
               for s in ("rwsem", "pervma")}
        for i, pt in enumerate(res["rwsem"]):
            for m in metrics:
                a = hmean_or_mean(m, pt["samples"][m])
                b = hmean_or_mean(m, res["pervma"][i]["samples"][m])
                ratios.setdefault((pt["tasks"], m), []).append(b / a if a else float("nan"))
    label = "6.17 per-VMA reader" if how == "vma" else "reader before 6.17"
    print(f"pervma / rwsem, {label} (--maps-lock {how}), {rounds} rounds:")
    for (t, m), xs in sorted(ratios.items()):
        print(f"  {t} task(s) {m:16s} median {statistics.median(xs):6.2f}x  "
              f"range {min(xs):.2f}-{max(xs):.2f}x")
PYEND
