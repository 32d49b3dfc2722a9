#!/usr/bin/env bash
# Host isolation: after set-up, vmsim never changes the host kernel's VMA
# layout. For each workload that maps, unmaps, protects or moves the
# break, in both modes and under every scheme, strace counts the real
# mmap / munmap / mprotect / mremap / brk calls of the whole run at
# 1 iteration and at 3: they must be equal (all of them are set-up),
# and the result file's timed-phase host counters must say 0.
# (strace is a Debian package; scripts/install-deps.sh installs it.)
set -u
VMSIM=${1:?usage: host_isolation.sh path/to/vmsim}
command -v strace >/dev/null || { echo "SKIP: no strace"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0
calls="mmap,munmap,mprotect,mremap,brk"

opts() {                         # small, fast runs of each workload
	case $1 in
	fault_vs_mmap) echo "-m 1M" ;;
	page_fault1|mmap1) echo "-m 256K --duration 1 --warmup 0 --interval 30" ;;
	brk1) echo "--duration 1 --warmup 0 --interval 30" ;;
	mmap_stress) echo "--cycles 20" ;;
	trunc) echo "-m 1M --frames pcp" ;;
	page_fault2) echo "-m 256K --duration 1 --warmup 0 --interval 30 --frames zone" ;;
	esac
}

# layout_calls ITERATIONS RUN-ARGS...: "name calls" lines, sorted.
layout_calls() {
	local i=$1; shift
	strace -f -qq -c --seccomp-bpf -e trace=$calls -o "$tmp/st" \
		"$VMSIM" run "$@" -i "$i" -q --brief -o "$tmp/r$i.json" -f \
		>/dev/null 2>"$tmp/err" || { echo "run failed: $(cat "$tmp/err")"; return 1; }
	awk '$NF ~ /^(mmap|munmap|mprotect|mremap|brk)$/ { print $NF, $4 }' "$tmp/st" | sort
}

# JSON: every point of every result file has 0 layout calls timed.
timed_zero() {
	python3 - "$tmp"/r3*.json <<'PY'
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
	a=$(layout_calls 1 "$@") && b=$(layout_calls 3 "$@") || {
		fails=$((fails + 1)); echo "FAIL: $label"; return; }
	if [ "$a" != "$b" ]; then
		fails=$((fails + 1))
		echo "FAIL: $label: host layout calls differ between -i 1 and -i 3:"
		diff <(echo "$a") <(echo "$b")
	elif ! timed_zero; then
		fails=$((fails + 1)); echo "FAIL: $label: timed-phase host calls"
	else
		passes=$((passes + 1))
		echo "ok: $label: $(echo "$a" | tr '\n' ' ')"
	fi
}

# Every scheme vmsim lists, but none (which runs alone, below).
schemes=$("$VMSIM" list | awk '/^lock schemes:/{f=1;next} /^$/{f=0} f&&$1!="none"{print $1}' | paste -sd,)
for w in fault_vs_mmap page_fault1 mmap1 brk1 mmap_stress trunc page_fault2; do
	for mode in threads processes; do
		# shellcheck disable=SC2046
		check "$w $mode" -w "$w" --mode "$mode" -t 1,2 \
			-l "$schemes" $(opts "$w")
	done
	# none: only where it is valid (one task, no concurrent writer)
	[ "$w" = fault_vs_mmap ] && continue
	# shellcheck disable=SC2046
	check "$w none" -w "$w" -t 1 -l none $(opts "$w")
done
# The slab caches (made before the timed phase; their sheaves, barn and
# RCU callbacks take no host memory after it), both slabs in one run.
for mode in threads processes; do
	# shellcheck disable=SC2046
	check "mmap_stress $mode slabs" -w mmap_stress --mode "$mode" -t 1,2 \
		--slab slub,sheaves $(opts mmap_stress)
done
echo "host_isolation: $passes passed, $fails failed"
[ $fails -eq 0 ]
