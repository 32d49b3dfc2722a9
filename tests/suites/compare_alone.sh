#!/usr/bin/env bash
# vmsim compare reads JSON and links no simulator code: the vmsim-compare
# target, built alone in a fresh build directory, builds none of the
# simulator's libraries (locks, uffd, sim, workloads, bench), holds none of
# their symbols, and compares the test data as vmsim compare does.
#   compare_alone.sh SOURCE_DIR VMSIM
set -u
src=${1:?usage: compare_alone.sh SOURCE_DIR VMSIM}
vmsim=${2:?vmsim}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
suite=compare_alone
# shellcheck source=tests/suites/lib.sh
. "$(dirname "$0")/lib.sh"
cmake -S "$src" -B "$d" -DVMSIM_SANITIZER_SUITES=OFF >/dev/null 2>"$d/err" ||
	{ cat "$d/err"; exit 1; }
cmake --build "$d" --target vmsim-compare -j"$(nproc)" >"$d/log" 2>&1 ||
	{ tail -20 "$d/log"; exit 1; }
built=$(find "$d" -name 'libvmsim_*.a' -printf '%f\n' | sort | tr '\n' ' ')
[ "$built" = "libvmsim_analysis.a libvmsim_base.a libvmsim_cli_core.a libvmsim_schema.a libvmsim_stats.a " ] ||
	fail "built more than the compare libraries: $built"
syms=$(nm "$d/vmsim-compare" | awk '$2 ~ /[TDBR]/ {print $3}' |
       grep -E '^(sim_|lock_|uffd_|rwsem_|vma_|frames_|slab_|wl_|rp_|runner_|group_|present_|trace_)' | head -5)
[ -z "$syms" ] || fail "simulator symbols in vmsim-compare: $syms"
data=$src/tests/data/compare
"$d/vmsim-compare" "$data/base.json" "$data/worse.json" >"$d/a" 2>&1
"$vmsim" compare "$data/base.json" "$data/worse.json" >"$d/b" 2>&1
cmp -s "$d/a" "$d/b" || fail "vmsim-compare and vmsim compare differ: $(diff "$d/a" "$d/b" | head -5)"
"$d/vmsim-compare" --fail-on-regression "$data/runs/base" "$data/runs/worse" >"$d/a" 2>&1
[ $? -eq 1 ] && tail -n1 "$d/a" | grep -q '^REGRESSION: ' || fail "vmsim-compare's gate: $(tail -n2 "$d/a")"
[ $fails -eq 0 ] && echo "compare_alone: vmsim-compare built alone, no simulator in it"
[ $fails -eq 0 ]
