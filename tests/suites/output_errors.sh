#!/usr/bin/env bash
# Every command's output that does not arrive is a failure: with standard
# output on /dev/full and closed, each command exits 1 with one line
# saying so (as coreutils' close_stdout), and a run without -o, whose
# summary was its result's only copy, keeps the result in a file under
# $TMPDIR and names it (issue 48).
#   output_errors.sh VMSIM DATA_DIR [PERF_TRACE_PROG]
set -u
vmsim=${1:?usage: output_errors.sh VMSIM DATA_DIR}
data=${2:?data dir}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp/tmpdir
mkdir "$TMPDIR"
n=0
suite=output_errors
# shellcheck source=tests/suites/lib.sh
. "$(dirname "$0")/lib.sh"

tiny=(-w pft -t 1 -i 3 -m 1M --min-sample 0 --ceiling off)
"$vmsim" run "${tiny[@]}" -q -o "$tmp/small.json" >/dev/null 2>&1 ||
	{ echo "output_errors: FAIL: the small run" >&2; exit 1; }

# Each line: a name, then the command's arguments (@D@ the data folder,
# @T@ this test's folder).
cmds=$(cat <<'LIST'
help	--help
version	--version
help-run	run --help
list	list
list-tsv	list --tsv
check	check
compare	compare @D@/compare/base.json @D@/compare/worse.json
compare-json	compare --format json @D@/compare/base.json @D@/compare/worse.json
compare-gate	compare --fail-on-regression @D@/compare/runs/base @D@/compare/runs/same
trace-info	trace info @D@/traces/sort.trace
trace-show	trace show @D@/traces/sort.trace
bench-tree	bench tree --vmas 100 --lookups 1000
bench-lock	bench lock --rounds 1
rerun	rerun @T@/small.json -f -o @T@/again.json
gate	gate --rounds 3 -- -w pft -t 1 -i 3 -m 1M --min-sample 0
run-o	run -w pft -t 1 -i 3 -m 1M --min-sample 0 --ceiling off -f -o @T@/o.json
LIST
)

# check_one NAME HOW ARGS...: HOW is full or closed.
check_one() {
	local name=$1 how=$2 st lines
	shift 2
	if [ "$how" = full ]; then
		"$vmsim" "$@" >/dev/full 2>"$tmp/err"
	else
		"$vmsim" "$@" >&- 2>"$tmp/err"
	fi
	st=$?
	n=$((n + 1))
	lines=$(grep -c 'cannot write standard output' "$tmp/err")
	# (the gate's own CANNOT JUDGE, 2, is kept: a status already not 0)
	{ [ "$st" -eq 1 ] || { [ "$name" = gate ] && [ "$st" -eq 2 ]; }; } &&
		[ "$lines" -eq 1 ] ||
		fail "$name >$how: exit $st, $lines lines about it: $(tr '\n' '|' <"$tmp/err")"
}


while IFS=$'\t' read -r name args; do
	args=${args//@D@/$data}
	args=${args//@T@/$tmp}
	# shellcheck disable=SC2086  # the arguments hold no spaces
	for how in full closed; do
		check_one "$name" "$how" $args
	done
done <<<"$cmds"

# A command that prints nothing on standard output (report tells on
# stderr where its page went) is fine with it closed or full.
for how in full closed; do
	if [ $how = full ]; then
		"$vmsim" report -f -o "$tmp/r.html" "$data/compare/base.json" >/dev/full 2>"$tmp/err"
	else
		"$vmsim" report -f -o "$tmp/r.html" "$data/compare/base.json" >&- 2>"$tmp/err"
	fi
	st=$?
	n=$((n + 1))
	[ $st -eq 0 ] && [ -s "$tmp/r.html" ] && ! grep -q 'standard output' "$tmp/err" ||
		fail "report >$how: exit $st: $(tr '\n' '|' <"$tmp/err")"
done

# record's own lines go to stderr (standard output is the recorded
# program's, issue 64): full or closed, the trace is written, and its
# summary said on stderr (where perf can record here; record.sh is its
# test).
if "$vmsim" record -o "$tmp/probe.trace" -- true >/dev/null 2>&1; then
	for how in full closed; do
		rm -f "$tmp/t.trace"
		if [ $how = full ]; then
			"$vmsim" record -f -o "$tmp/t.trace" -- true >/dev/full 2>"$tmp/err"
		else
			"$vmsim" record -f -o "$tmp/t.trace" -- true >&- 2>"$tmp/err"
		fi
		st=$?
		n=$((n + 1))
		[ $st -eq 0 ] && [ -s "$tmp/t.trace" ] && grep -q '^recorded ' "$tmp/err" ||
			fail "record >$how: exit $st: $(tr '\n' '|' <"$tmp/err")"
	done
fi
# A run without -o: exit 1, one line naming the file, and the file there,
# complete, in a folder of its own under $TMPDIR.
for how in full closed; do
	if [ $how = full ]; then
		"$vmsim" run "${tiny[@]}" -q >/dev/full 2>"$tmp/err"
	else
		"$vmsim" run "${tiny[@]}" -q >&- 2>"$tmp/err"
	fi
	st=$?
	n=$((n + 1))
	f=$(sed -n 's/^vmsim: cannot write standard output (.*): the result went to //p' "$tmp/err")
	if [ "$st" -ne 1 ] || [ "$(grep -c . "$tmp/err")" -ne 1 ] || [ -z "$f" ]; then
		fail "run >$how without -o: exit $st: $(tr '\n' '|' <"$tmp/err")"
	elif [ "${f#"$TMPDIR"/vmsim-run-}" = "$f" ] ||
	     ! python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["complete"] else 1)' "$f"; then
		fail "run >$how without -o: no complete result at '$f'"
	fi
done

# Several schemes: one line naming the folder, a file a scheme in it.
"$vmsim" run "${tiny[@]}" -l rwsem,pervma -q >/dev/full 2>"$tmp/err"
d=$(sed -n 's/^vmsim: cannot write standard output (.*): the result went to //p' "$tmp/err")
n=$((n + 1))
[ -n "$d" ] && [ -s "$d/rwsem.json" ] && [ -s "$d/pervma.json" ] ||
	fail "run -l rwsem,pervma >/dev/full: $(cat "$tmp/err"); $(ls "$d" 2>&1)"

[ $fails -eq 0 ] || exit 1
echo "output_errors: $n commands with a failing standard output: exit 1, one line, nothing lost"
