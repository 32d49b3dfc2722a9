#!/usr/bin/env bash
# vmsim record stopped at random moments (issue 22, acceptance 3):
# ROUNDS x SIGINT, SIGTERM, SIGHUP and a double SIGINT (the second
# 0-0.8 s after the first, often while perf's data is converted); each
# exits 128 + the signal.
# Each must leave either a valid trace where asked or one clear "nothing
# recorded" line, no process of the recording alive (perf, perf script,
# the traced program), and nothing of vmsim's in $TMPDIR.
# Skips (77) without perf and its tracepoints.
# usage: record_signals.sh VMSIM [ROUNDS]
set -u
VMSIM=${1:?usage: record_signals.sh vmsim [rounds]}
rounds=${2:-10}
# shellcheck source=tests/suites/lib.sh
. "$(dirname "$0")/lib.sh"
# vmsim record mounts tracefs itself where it is not, as perf does.
command -v perf >/dev/null && [ "$(id -u)" = 0 ] ||
	{ echo "record_signals: no perf, or not root: skip"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0
# vmsim's scratch files go under $TMPDIR: this test's own folder, so that
# what is left behind is this test's alone (other recordings may run
# beside it). Its processes are found by session: each vmsim starts as
# the leader of a session of its own (setsid, which does not fork in a
# script's background job: $! is vmsim), and perf, perf script and the
# program stay in it. Nothing is matched by name or pattern.
mkdir "$tmp/scratch"
export TMPDIR=$tmp/scratch
# A program that churns memory for 1 s.
prog="import time
t = time.time()
while time.time() - t < 1: b = [bytearray(65536) for _ in range(16)]"
# The live PIDs still in session $1 (proc_stat's 4th field; the 1st is
# the state). A zombie has ended: it only waits for its new parent
# (init) to reap it.
in_session() {
	local d st
	for d in /proc/[0-9]*; do
		st=$(proc_stat "${d#/proc/}") || continue
		set -- "$1" $st
		[ "$5" = "$1" ] && [ "$2" != Z ] && echo "${d#/proc/}"
	done
}
# What is left: scratch files, and processes of the session that are
# still alive after 2 s (one that is exiting gets that long).
leftovers() {
	local i
	ls -A "$TMPDIR"
	for i in $(seq 20); do
		[ -z "$(in_session "$1")" ] && return
		sleep 0.1
	done
	in_session "$1" | while read -r p; do
		printf '%s (%s): %s\n' "$p" "$(proc_stat "$p" | cut -d' ' -f1)" \
			"$(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null)"
	done
}
rnd() { echo "$(( RANDOM % ($1 + 1) ))"; }   # 0..N (ms, as an integer)
ms() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

for kind in INT TERM HUP DOUBLE; do
	for i in $(seq 1 "$rounds"); do
		rm -f "$tmp/s.trace" "$tmp/s.trace.mmap_lock.json"
		setsid "$VMSIM" record -o "$tmp/s.trace" -- python3 -c "$prog" \
			>"$tmp/out" 2>"$tmp/err" &
		pid=$!
		# A hang's end (60 s), which ends itself within 0.1 s of
		# vmsim's: nothing of it outlives the round.
		( for _ in $(seq 600); do
			kill -0 $pid 2>/dev/null || exit 0; sleep 0.1
		  done; kill -KILL $pid 2>/dev/null ) >/dev/null 2>&1 &
		dog=$!
		d=$(rnd 1500)
		sleep "$(ms "$d")"
		sent=1                       # 0: vmsim had ended already
		case $kind in
		INT)  kill -INT $pid 2>/dev/null || sent=0 ;;
		TERM) kill -TERM $pid 2>/dev/null || sent=0 ;;
		HUP)  kill -HUP $pid 2>/dev/null || sent=0 ;;
		DOUBLE)
			kill -INT $pid 2>/dev/null || sent=0
			sleep "$(ms "$(rnd 800)")"
			kill -INT $pid 2>/dev/null ;;
		esac
		wait $pid
		rc=$?
		wait $dog 2>/dev/null
		what="SIG$kind at ${d} ms (exit $rc)"
		case $kind in INT|DOUBLE) want=130;; TERM) want=143;; HUP) want=129;; esac
		[ $sent = 1 ] || want=0
		if [ $rc -ne $want ]; then
			echo "FAIL: $what: want exit $want (128 + the signal)"
			fails=$((fails + 1)); continue
		fi
		if [ -e "$tmp/s.trace" ]; then
			if ! "$VMSIM" trace info "$tmp/s.trace" >"$tmp/info" 2>&1; then
				echo "FAIL: $what: the trace does not read back"
				fails=$((fails + 1)); continue
			fi
			# A trace holds something of the program: one of no
			# thread is "nothing recorded" said (issue 48).
			if grep -q '^threads   0$' "$tmp/info"; then
				echo "FAIL: $what: a trace of 0 threads was written"
				fails=$((fails + 1)); continue
			fi
		elif ! grep -q "^vmsim: record: nothing recorded" "$tmp/err"; then
			echo "FAIL: $what: no trace and no 'nothing recorded' line: $(cat "$tmp/err")"
			fails=$((fails + 1)); continue
		fi
		left=$(leftovers $pid)
		if [ -n "$left" ]; then
			echo "FAIL: $what: left behind: $left"
			in_session $pid | xargs -r kill -KILL 2>/dev/null
			rm -rf "${TMPDIR:?}"
			mkdir "$TMPDIR"
			fails=$((fails + 1)); continue
		fi
		passes=$((passes + 1))
	done
done
# SIGHUP keeps the recording (issue 34: forwarded as it was, it ended
# perf before its file was whole, 5 of 5): a program still running when
# it comes is recorded until then.
rm -f "$tmp/h.trace" "$tmp/h.trace.mmap_lock.json"
"$VMSIM" record -o "$tmp/h.trace" -- sleep 5 >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 1.2
kill -HUP $pid
wait $pid
rc=$?
if [ $rc -eq 129 ] && "$VMSIM" trace info "$tmp/h.trace" >/dev/null 2>&1; then
	passes=$((passes + 1))
else
	echo "FAIL: SIGHUP at 1.2 s of sleep 5: exit $rc, $(cat "$tmp/err")"
	fails=$((fails + 1))
fi
echo "record_signals: $passes passed, $fails failed"
[ $fails -eq 0 ]
