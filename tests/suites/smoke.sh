#!/usr/bin/env bash
# The workload matrix at tiny sizes: every workload under every scheme,
# in threads and processes modes (replay: threads), with both fault sources. Each run of a
# workload takes all schemes at once (interleaved); every result file
# must be complete, hold samples for each documented metric, and show
# work done (every sample of the primary metric above zero).
# The developer's suite runs each workload's threads with uffd and its
# processes with synthetic faults; `full` (CI's deep run) every pair.
set -u
VMSIM=${1:?usage: smoke.sh path/to/vmsim [full]}
full=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Every scheme and workload vmsim lists, each workload at the tiny size
# and in the modes its descriptor gives (vmsim list --tsv).
list=$("$VMSIM" list --tsv)
schemes=$(echo "$list" | awk -F'\t' '$1 == "scheme" { print $2 }' | paste -sd,)
excluding=$(echo "$list" | awk -F'\t' '$1 == "scheme" && $3 == "excludes" { print $2 }' | paste -sd,)
traces=$(cd "$(dirname "$0")/.." && pwd)/data/traces
fails=0 passes=0
for w in $(echo "$list" | awk -F'\t' '$1 == "workload" { print $2 }'); do
	row=$(echo "$list" | awk -F'\t' -v w="$w" '$1 == "workload" && $2 == w')
	args=$(echo "$row" | cut -f7)
	args=${args//@TRACES@/$traces}
	for mode in threads processes; do
		echo "$row" | cut -f4 | grep -qw "$mode" || continue
		for src in uffd synthetic; do
			# (replay has threads only: both sources there)
			[ "$full" = full ] || [ $w = replay ] ||
				[ $mode-$src = threads-uffd ] ||
				[ $mode-$src = processes-synthetic ] || continue
			out=$tmp/$w-$mode-$src
			# a scheme without exclusion is refused where tasks
			# sharing an mm map and unmap at once (cli.sh checks that)
			locks=$schemes
			if [ $mode = threads ] &&
			   echo "$row" | cut -f5 | grep -q concurrent-writes; then
				locks=$excluding
			fi
			# a warm-up pass, then one pass a sample: every
			# workload runs, not a measurement (cli.sh has those)
			if ! timeout 120 "$VMSIM" run -w $w -l "$locks" -t 2 --mode $mode \
				--fault-source $src $args --min-sample 0 --ceiling off \
				-q -o "$out.json" >"$out.log" 2>&1; then
				echo "FAIL: $w $mode $src: $(tail -3 "$out.log")"
				fails=$((fails + 1))
				continue
			fi
			if python3 - "$out" "$locks" <<'PY'
import json, sys
base, locks = sys.argv[1], sys.argv[2].split(",")
for l in locks:
    r = json.load(open(f"{base}-{l}.json"))
    assert r["complete"], (l, "incomplete")
    for p in r["results"]:
        for m in r["metrics"]:
            assert len(p["samples"][m]) >= 1, (l, m)
        # work was done: every sample of the primary metric is positive
        m0 = next(k for k, v in r["metrics"].items() if v["primary"])
        assert all(v > 0 for v in p["samples"][m0]), (l, m0, p["samples"][m0])
        assert p["segv"] == 0, (l, p["segv"])
        # a fault's time in the lock is measured wherever faults happened
        if sum(p["faults"].values()):
            sp = p["fault_split_ns"]
            assert sp["lock_hold"] > 0 and sp["mean"] > 0, (l, sp)
            assert 0 <= sp["lock_share"] <= 1.0001, (l, sp)
PY
			then passes=$((passes + 1))
			else echo "FAIL: $w $mode $src: result files"; fails=$((fails + 1))
			fi
		done
	done
done
echo "smoke: $passes passed, $fails failed"
[ $fails -eq 0 ]
