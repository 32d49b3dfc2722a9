#!/usr/bin/env bash
# The host kernel as a column (-l kernel): every workload that can run
# natively runs beside pervma and rwsem at 1 and 2 tasks in each of its
# modes; the kernel's faults are the host's (each task thread's own
# minflt: at least the pages it touched; the machine's pgfault over the
# timed passes at least their share; nothing of userfaultfd's); what
# cannot run natively is refused with one line; compare shows the
# distance; calibrate prints its table. No timing is asserted.
set -u
VMSIM=${1:?usage: kernel_column.sh path/to/vmsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# calibrate's scratch folder (and anything else vmsim puts under
# $TMPDIR) stays inside this suite's own
export TMPDIR=$tmp
traces=$(cd "$(dirname "$0")/.." && pwd)/data/traces
list=$("$VMSIM" list --tsv)
suite=kernel_column
# shellcheck source=tests/suites/lib.sh
. "$(dirname "$0")/lib.sh"
pass() { passes=$((passes + 1)); }

echo "$list" | grep -qx $'host\tkernel' || fail "list --tsv has no host row"
"$VMSIM" list | grep -q "^  kernel .*here Linux $(uname -r)" ||
	fail "vmsim list does not name the host's release"

# check_kernel RESULT TOUCHES_MEM [MODEL]: the kernel result's faults are
# the host's: every touch faults (TOUCHES_MEM 1), or, for a replay (which
# touches some pages twice), as many as the model's faults (MODEL's).
check_kernel() {
	python3 - "$1" "$2" "${3:-}" <<'PY'
import glob, json, sys
r = json.load(open(sys.argv[1]))
touches_mem = sys.argv[2] == "1"
model = json.load(open(sys.argv[3])) if sys.argv[3] else None
# Where the host puts large folios in anonymous memory unasked (THP or
# an mTHP size "always"), one fault places many pages: then only that
# the tasks faulted at all can be checked.
def always(path):
    try:
        return "[always]" in open(path).read()
    except OSError:
        return False
thp = always("/sys/kernel/mm/transparent_hugepage/enabled") or any(
    always(f) for f in glob.glob("/sys/kernel/mm/transparent_hugepage/hugepages-*/enabled"))
assert r["scheme"] == "kernel", r["scheme"]
assert r["complete"], "incomplete"
hk = r["meta"]["host_kernel"]
assert hk["release"] and "per_vma_lock" in hk, hk
for p in r["results"]:
    t = p["tasks"]
    # the model's fault counters are not the kernel's: none of them
    assert sum(p["faults"].values()) == 0, (t, p["faults"])
    src = p.get(r["fault_source"], {})
    assert not src.get("messages"), (t, "uffd messages", src)
    assert p["segv"] == 0, (t, p["segv"])
    want = p["touches"]
    if model:
        mp = next(q for q in model["results"] if q["tasks"] == t)
        want = sum(mp["faults"].values())
    if (touches_mem or model) and thp:
        assert want > 0 and p["host_faults"] > 0, (t, p["host_faults"], want)
    elif touches_mem or model:
        # each fault the workload makes is a host fault of its task's
        assert want > 0, t
        assert p["host_faults"] >= want, (t, p["host_faults"], want)
        # and the machine's over the timed passes at least their share
        runs, warm = p.get("counted_passes", 0), p.get("warmup_passes", 0)
        if runs:
            timed = want * (runs - warm) // runs
            vm = p["host"]["vmstat_delta"]
            assert vm["pgfault"] >= timed, (t, vm, timed)
PY
}

for w in $(echo "$list" | awk -F'\t' '$1 == "workload" { print $2 }'); do
	row=$(echo "$list" | awk -F'\t' -v w="$w" '$1 == "workload" && $2 == w')
	args=$(echo "$row" | cut -f7)
	args=${args//@TRACES@/$traces}
	if [ "$(echo "$row" | cut -f8)" = no-host ]; then
		out=$tmp/$w-refused
		"$VMSIM" run -w "$w" -l kernel,pervma $args -q -o "$out.json" \
			>"$out.log" 2>&1
		rc=$?
		if [ $rc -ne 2 ] || [ "$(wc -l <"$out.log")" -ne 1 ] ||
		   ! grep -q "cannot run on the host kernel" "$out.log"; then
			fail "$w: not refused in one line (exit $rc): $(cat "$out.log")"
		else
			pass
		fi
		continue
	fi
	tasks="-t 1,2"
	[ "$w" = replay ] && tasks=""       # a trace's threads are its tasks
	touches=0
	case $w in pft|page_fault*|fault_vs_mmap|maps_reader|mmap_stress|malloc_arena) touches=1 ;; esac
	for mode in threads processes; do
		echo "$row" | cut -f4 | grep -qw "$mode" || continue
		out=$tmp/$w-$mode
		if ! timeout 300 "$VMSIM" run -w "$w" -l kernel,pervma,rwsem $tasks \
			--mode $mode $args --min-sample 0 --ceiling off -q \
			-o "$out.json" >"$out.log" 2>&1; then
			fail "$w $mode: $(tail -3 "$out.log")"
			continue
		fi
		model=""
		[ "$w" = replay ] && model=$out-pervma.json
		if check_kernel "$out-kernel.json" "$touches" $model >"$out.check" 2>&1; then
			pass
		else
			fail "$w $mode: $(tail -2 "$out.check")"
		fi
	done
done

# A recorded program of another kind than sort: the shipped xz trace.
out=$tmp/xz
if timeout 300 "$VMSIM" run -w replay --trace "$traces/xz.trace" \
	-l kernel,pervma,rwsem -i 1 --min-sample 0 --ceiling off -q --speed asap \
	-o "$out.json" >"$out.log" 2>&1 &&
	check_kernel "$out-kernel.json" 0 "$out-pervma.json" \
	>"$out.check" 2>&1; then
	pass
else
	fail "replay xz.trace: $(tail -3 "$out.log" "$out.check" 2>/dev/null)"
fi

# --replay-log checks the model's VMAs: refused with the kernel, one line.
"$VMSIM" run -w replay --trace "$traces/sort.trace" -l kernel,pervma \
	--replay-log "$tmp/log" -q -o "$tmp/rl.json" >"$tmp/rl.log" 2>&1
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/rl.log")" -eq 1 ]; then pass; else
	fail "--replay-log with kernel: exit $rc: $(cat "$tmp/rl.log")"; fi

# The kernel column registers no uffd: an arena whose 2 MiB stripes
# would pass vm.max_map_count is refused only where a model registers
# it (issue 64: a kernel-only replay of a renderer's trace was refused).
"$VMSIM" run -w pft -l kernel -t 2 -i 1 -m 1M --arena 256G --ceiling off -q \
	-o "$tmp/big.json" >"$tmp/big.log" 2>&1
rc=$?
if [ $rc -eq 0 ]; then pass; else
	fail "a kernel-only run with a 256 GiB arena: exit $rc: $(cat "$tmp/big.log")"; fi

# The models' own options get one note, and the run goes on.
"$VMSIM" run -w pft -l kernel,pervma -t 1 -i 1 -m 1M --hold-extra 10 \
	--ceiling off -o "$tmp/note.json" >"$tmp/note.out" 2>"$tmp/note.err"
rc=$?
# (one note; a busy machine may add warnings of its own)
if [ $rc -eq 0 ] && [ "$(grep -c '^vmsim: note:' "$tmp/note.err")" -eq 1 ] &&
   grep -q "hold-extra: the models' own" "$tmp/note.err"; then pass; else
	fail "model option note: exit $rc: $(cat "$tmp/note.err")"; fi
grep -q "^kernel column: the host, Linux $(uname -r)" "$tmp/note.out" ||
	fail "the run does not say which kernel its column is"

# compare: the distance table where a kernel column is (pft's results).
"$VMSIM" compare "$tmp/pft-threads-kernel.json" "$tmp/pft-threads-pervma.json" \
	>"$tmp/cmp.out" 2>&1
if grep -q "^Distance from the host kernel" "$tmp/cmp.out" &&
   grep -Eq "^2 +[0-9.]+x +[0-9.]+x \([+-][0-9]+%" "$tmp/cmp.out"; then pass; else
	fail "compare shows no distance: $(tail -8 "$tmp/cmp.out")"; fi

# calibrate: a table row a task count, the models' scaling beside the
# kernel's.
if timeout 300 "$VMSIM" calibrate -w pft --fault-source synthetic -i 2 -q \
	>"$tmp/cal.out" 2>&1 &&
   grep -Eq "^pft +synthetic +1 " "$tmp/cal.out" &&
   grep -Eq "^pft +synthetic +2 +[0-9]+ +[0-9.]+x" "$tmp/cal.out"; then pass; else
	fail "calibrate: $(cat "$tmp/cal.out")"; fi

suite_end
