#!/usr/bin/env bash
# How well a vmsim run repeats on this machine: the same run N times back
# to back, then per scheme and task count the primary metric's mean of
# each run (Hmean or Amean, as compare prints it), the spread inside each
# run (median HCoeffVar/CoeffVar of the runs) and the spread between the
# runs (CoeffVar of the N means) — the figure a comparison of two runs
# rests on.
#
#   scripts/repeatability.sh N [-- vmsim run options]
#   e.g. scripts/repeatability.sh 10 -- -w pft -t 1 -i 5
#
# VMSIM names the binary (default build/vmsim). Exit 0, or 1 if a run
# failed.
set -euo pipefail
n=${1:?usage: scripts/repeatability.sh N [-- vmsim run options]}
shift
[ "${1:-}" = "--" ] && shift
cd "$(dirname "$0")/.."
vmsim=${VMSIM:-build/vmsim}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for i in $(seq 1 "$n"); do
	if ! "$vmsim" run "$@" -q -o "$dir/r$i.json" >"$dir/out$i" 2>&1; then
		echo "repeatability: run $i failed:" >&2
		cat "$dir/out$i" >&2
		exit 1
	fi
done
python3 - "$dir" "$n" <<'PY'
import glob, json, math, os, statistics as st, sys
d, n = sys.argv[1], int(sys.argv[2])
def cov(x, higher):
    if len(x) < 2:
        return float("nan")
    if higher:
        h = st.harmonic_mean(x)
        return 100 * math.sqrt(sum((1 / v - 1 / h) ** 2 for v in x) * h ** 4 / len(x)) / h
    return 100 * st.stdev(x) / st.mean(x)
rows = {}
for i in range(1, n + 1):
    for f in sorted(glob.glob(f"{d}/r{i}.json") + glob.glob(f"{d}/r{i}-*.json")):
        r = json.load(open(f))
        label = r.get("label", r["scheme"])
        m = next(k for k, v in r["metrics"].items() if v.get("primary"))
        higher = r["metrics"][m]["better"] == "higher"
        for p in r["results"]:
            x = p["samples"][m]
            mean = st.harmonic_mean(x) if higher else st.mean(x)
            rows.setdefault((label, m, p["tasks"], higher), []).append((mean, cov(x, higher)))
print(f"{n} runs back to back; per run the {'Hmean/Amean'} of the primary metric")
for (label, m, t, higher), v in rows.items():
    means = [a for a, _ in v]
    inside = st.median([c for _, c in v if not math.isnan(c)] or [float("nan")])
    between = 100 * st.stdev(means) / st.mean(means) if len(means) > 1 else float("nan")
    print(f"{label} {m}-{t}: " + " ".join(f"{a:.0f}" for a in means))
    print(f"  spread inside a run (median {'H' if higher else ''}CoeffVar) {inside:.1f}%, "
          f"between runs (CoeffVar of the {len(means)} means) {between:.1f}%, "
          f"range {100 * (max(means) / min(means) - 1):.1f}%")
PY
