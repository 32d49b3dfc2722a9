#!/usr/bin/env bash
# Host isolation: after set-up, vmsim never changes the host kernel's VMA
# layout. For each workload that maps, unmaps, protects or moves the
# break, in both modes and under every scheme, strace counts the real
# mmap / munmap / mprotect / mremap / brk calls of the whole run at
# 1 iteration and at 2: they must be equal (all of them are set-up),
# and the result file's timed-phase host counters must say 0.
# The developer's suite runs each workload in each mode once, at 2 tasks:
# in threads mode under every scheme that can run there (not none: its
# tasks would share an mm and map at once), in processes mode under
# rwsem and none (the mode's own calls; a scheme's are the same in
# both); `full` (CI's deep run) runs 1 and 2 tasks, every scheme in
# processes mode, and adds none in threads mode at one task.
# (strace is a Debian package; scripts/install-deps.sh installs it.)
set -u
VMSIM=${1:?usage: host_isolation.sh path/to/vmsim [full]}
full=${2:-}
tasks=2
[ "$full" = full ] && tasks=1,2
command -v strace >/dev/null || { echo "SKIP: no strace"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0
calls="mmap,munmap,mprotect,mremap,brk"

# The workloads whose tasks change the address space in the timed phase,
# and the tiny run of each, as their descriptors say (vmsim list --tsv);
# -i is this script's.
opts() {
	"$VMSIM" list --tsv | awk -F'\t' -v w="$1" '$1 == "workload" && $2 == w { print $7 }' |
		sed 's/ -i [0-9]*//'
}
isolated=$("$VMSIM" list --tsv | awk -F'\t' '$1 == "workload" && $6 == "isolation" { print $2 }')

# layout_calls ITERATIONS RUN-ARGS...: "name calls" lines, sorted.
layout_calls() {
	local i=$1; shift
	# One pass a sample and no ceiling check: what is counted is the
	# host calls, and strace makes every pass slow.
	strace -f -qq -c --seccomp-bpf -e trace=$calls -o "$tmp/st" \
		"$VMSIM" run "$@" -i "$i" --min-sample 0 --ceiling off -q --brief \
		-o "$tmp/r$i.json" -f \
		>/dev/null 2>"$tmp/err" || { echo "run failed: $(cat "$tmp/err")"; return 1; }
	awk '$NF ~ /^(mmap|munmap|mprotect|mremap|brk)$/ { print $NF, $4 }' "$tmp/st" | sort
}

# JSON: every point of every result file has 0 layout calls timed.
timed_zero() {
	python3 - "$tmp"/r2*.json <<'PY'
import json, sys
for f in sys.argv[1:]:
    for p in json.load(open(f))["results"]:
        h = p["host"]["timed_phase_calls"]
        bad = {k: h[k] for k in ("mmap", "munmap", "mprotect", "mremap", "brk") if h[k]}
        assert not bad, (f, p["tasks"], bad)
PY
}

check() {                        # check LABEL RUN-ARGS...
	local label=$1; shift
	rm -f "$tmp"/r*.json
	local a b
	a=$(layout_calls 1 "$@") && b=$(layout_calls 2 "$@") || {
		fails=$((fails + 1)); echo "FAIL: $label"; return; }
	if [ "$a" != "$b" ]; then
		fails=$((fails + 1))
		echo "FAIL: $label: host layout calls differ between -i 1 and -i 2:"
		diff <(echo "$a") <(echo "$b")
	elif ! timed_zero; then
		fails=$((fails + 1)); echo "FAIL: $label: timed-phase host calls"
	else
		passes=$((passes + 1))
		echo "ok: $label: $(echo "$a" | tr '\n' ' ')"
	fi
}

# Every scheme vmsim lists that excludes (those that do not run alone,
# below).
schemes=$("$VMSIM" list --tsv | awk -F'\t' '$1 == "scheme" && $3 == "excludes" { print $2 }' | paste -sd,)
alone=$("$VMSIM" list --tsv | awk -F'\t' '$1 == "scheme" && $3 != "excludes" { print $2 }')
pschemes=rwsem
[ "$full" = full ] && pschemes=$schemes
for w in $isolated; do
	# shellcheck disable=SC2046
	check "$w threads" -w "$w" --mode threads -t $tasks -l "$schemes" $(opts "$w")
	# shellcheck disable=SC2046
	check "$w processes" -w "$w" --mode processes -t $tasks \
		-l "$pschemes,$(echo $alone | tr ' ' ',')" $(opts "$w")
	# no exclusion in threads mode: only where it is valid (one task,
	# no writer task: none whose tiny run has --writers)
	[ "$full" = full ] || continue
	case " $(opts "$w") " in *" --writers "*) continue ;; esac
	for l in $alone; do
		# shellcheck disable=SC2046
		check "$w $l" -w "$w" -t 1 -l "$l" $(opts "$w")
	done
done
# Page frames behind faults, as a component (the zone, its buddy lists).
# shellcheck disable=SC2046
check "page_fault2 threads frames" -w page_fault2 -t $tasks -l "$schemes" \
	--frames zone $(opts page_fault2)
# The slab caches (made before the timed phase; their sheaves, barn and
# RCU callbacks take no host memory after it), both slabs in one run.
for mode in threads processes; do
	# shellcheck disable=SC2046
	check "mmap_stress $mode slabs" -w mmap_stress --mode "$mode" -t $tasks \
		--slab slub,sheaves $(opts mmap_stress)
done
# An untouched mapping costs no host call at all: will-it-scale's mmap1
# and mmap2 at their default 128M zap nothing (no madvise timed).
for w in mmap1 mmap2; do
	# shellcheck disable=SC2046
	if "$VMSIM" run -w "$w" -t 1 $(opts "$w") -m 128M -i 1 -q --brief \
		-o "$tmp/z.json" -f >/dev/null 2>"$tmp/err" &&
	   python3 -c 'import json,sys; sys.exit(any(p["host"]["timed_phase_calls"]["madvise"] for p in json.load(open(sys.argv[1]))["results"]))' "$tmp/z.json"; then
		passes=$((passes + 1)); echo "ok: $w 128M: no madvise timed"
	else
		fails=$((fails + 1)); echo "FAIL: $w 128M: madvise in the timed phase $(cat "$tmp/err")"
	fi
done
echo "host_isolation: $passes passed, $fails failed"
[ $fails -eq 0 ]
