#!/usr/bin/env bash
# The workload matrix at tiny sizes: every workload under every scheme,
# in threads and processes modes (replay: threads), with both fault sources. Each run of a
# workload takes all schemes at once (interleaved); every result file
# must be complete, hold samples for each documented metric, and show
# work done (every sample of the primary metric above zero).
set -u
VMSIM=${1:?usage: smoke.sh path/to/vmsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
schemes=$("$VMSIM" list | awk '/^lock schemes:/{f=1;next} /^$/{f=0} f{print $1}' | paste -sd,)
workloads=$("$VMSIM" list | awk '/^workloads:/{f=1;next} f&&NF{print $1}')
fails=0 passes=0
for w in $workloads; do
	case $w in
	pft) args="-m 1M -i 1" ;;
	fault_vs_mmap) args="-m 1M -i 1 --writers 1" ;;
	mmap_stress) args="--cycles 10 -i 1" ;;
	brk1) args="--duration 1 --warmup 0 --interval 50" ;;  # no --mem
	madvise_batch) args="-m 1M -i 1" ;;
	trunc) args="-m 1M -i 1 --frames pcp" ;;               # needs frames
	replay) args="-i 1 --trace $(dirname "$0")/data/traces/sort.trace" ;;
	*) args="-m 256K --duration 1 --warmup 0 --interval 50" ;;
	esac
	for mode in threads processes; do
		# a trace is one address space: replay refuses processes mode
		[ "$w-$mode" = replay-processes ] && continue
		for src in uffd synthetic; do
			out=$tmp/$w-$mode-$src
			# none has no exclusion: vmsim refuses it where tasks
			# sharing an mm map and unmap at once (cli.sh checks that)
			locks=$schemes
			case $mode-$w in
			threads-pft|threads-madvise_batch|processes-*) ;;
			*) locks=${locks/,none/} ;;
			esac
			if ! timeout 120 "$VMSIM" run -w $w -l "$locks" -t 2 --mode $mode \
				--fault-source $src $args -q -o "$out.json" >"$out.log" 2>&1; then
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
