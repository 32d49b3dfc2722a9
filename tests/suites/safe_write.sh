#!/usr/bin/env bash
# Every file vmsim writes goes through one safe-write layer (issue 22):
#  - record -o, --replay-log and run -o never replace a file that is not
#    theirs (without --force not even theirs), never write through a
#    symbolic link planted at any name vmsim might choose (the name, the
#    names beside it, the old temporary names, side files, $TMPDIR
#    fallbacks): every planted link's target is unchanged afterwards;
#  - --replay-log never writes onto the trace it replays; /dev/full and a
#    directory are refused before the run;
#  - -f with an interrupted run keeps the good result, the partial one
#    goes beside it;
#  - two runs in different PID namespaces into one folder both land;
#  - a full disk sends a recording, a result and a replay log to $TMPDIR
#    (exit 1, said where), and the recording is whole there.
# The record cases need perf (skipped, and said, without it).
set -u
VMSIM=${1:?usage: safe_write.sh path/to/vmsim TRACE}
trace=${2:?a shipped trace}
tmp=$(mktemp -d)
trap 'umount "$tmp/full" 2>/dev/null; rm -rf "$tmp"' EXIT
suite=safe_write
# shellcheck source=tests/suites/lib.sh
. "$(dirname "$0")/lib.sh"
valid_result() {
	python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['vmsim_result']" "$1" 2>/dev/null
}
valid_trace() { "$VMSIM" trace info "$1" >/dev/null 2>&1; }
have_perf=0
command -v perf >/dev/null && [ "$(id -u)" = 0 ] && have_perf=1
[ $have_perf = 1 ] || echo "safe_write: no perf or tracepoints here: the record cases are skipped"
out=$tmp/w victims=$tmp/victims
mkdir -p "$out" "$victims" "$tmp/safe"
for v in 1 2 3 4 5 6 7 8 9; do echo "victim $v" >"$victims/v$v"; done
victims_intact() {
	for v in 1 2 3 4 5 6 7 8 9; do
		[ "$(cat "$victims/v$v")" = "victim $v" ] || return 1
	done
}
expect() {   # expect WHAT RC FRAGMENT CMD...: exit RC and FRAGMENT on stderr
	local what=$1 rc=$2 frag=$3; shift 3
	"$@" >"$tmp/o" 2>"$tmp/e"
	local got=$?
	if [ $got -eq "$rc" ] && { [ -z "$frag" ] || grep -qF -- "$frag" "$tmp/e"; }; then ok
	else fail "$what: exit $got (want $rc), stderr: $(head -c 400 "$tmp/e")"; fi
}
run() { "$VMSIM" run -w pft -t 1 -i 2 -m 8M -q "$@"; }
replay() { "$VMSIM" run -w replay --trace "$out/in.trace" -i 1 -q --ceiling off --fault-source synthetic "$@"; }
cp "$trace" "$out/in.trace"
sum_in=$(md5sum <"$out/in.trace")

# 1. record -o onto a file that is not a trace, a device, an existing trace.
echo keep >"$out/notes.txt"
if [ $have_perf = 1 ]; then
	expect "record onto notes" 2 "trace '$out/notes.txt' exists (use --force" \
		"$VMSIM" record -o "$out/notes.txt" -- /bin/true
	expect "record -f onto notes" 2 "is not a vmsim trace: --force replaces only traces" \
		"$VMSIM" record -f -o "$out/notes.txt" -- /bin/true
	expect "record onto /dev/null" 2 "'/dev/null' is a character device" \
		"$VMSIM" record -o /dev/null -- /bin/true
	[ "$(cat "$out/notes.txt")" = keep ] && [ -c /dev/null ] && ok ||
		fail "a refused record target changed"
	# --force replaces a trace (and only then).
	"$VMSIM" record -o "$out/t.trace" -- /bin/true >/dev/null 2>&1
	expect "record onto a trace" 2 "exists (use --force" \
		"$VMSIM" record -o "$out/t.trace" -- /bin/true
	expect "record -f onto a trace" 0 "" "$VMSIM" record -f -o "$out/t.trace" -- /bin/true
	valid_trace "$out/t.trace" && ok || fail "record -f: not a trace"
fi

# 2. Links planted at every name vmsim might choose.
ln -s "$victims/v1" "$out/x.trace.tmp"            # the old temporary name
ln -s "$victims/v2" "$out/x-2.trace"
ln -s "$victims/v3" "$out/r-2.json"               # beside names
ln -s "$victims/v4" "$out/r-3.json"
ln -s "$victims/v5" "$out/log-2.txt"
for p in 1 2 $$ $((BASHPID + 1)) $((BASHPID + 2)); do
	ln -sf "$victims/v6" "$out/.vmsim-$p-0.tmp"   # the old result temporaries
	ln -sf "$victims/v7" "$out/r.json.tmp.$p"
done
for k in 0 1 2 3; do                              # old $TMPDIR fallbacks
	ln -sf "$victims/v8" "$tmp/safe/vmsim-pft-rwsem-$k.json"
	ln -sf "$victims/v8" "$tmp/safe/vmsim-trace-$k"
done
if [ $have_perf = 1 ]; then
	expect "record beside planted links" 0 "" "$VMSIM" record -o "$out/x.trace" -- /bin/true
	valid_trace "$out/x.trace" && ok || fail "record with planted links"
	ln -s "$victims/v9" "$out/y.trace.mmap_lock.json"
	expect "record's side file a link" 2 "'$out/y.trace.mmap_lock.json' is a symbolic link" \
		"$VMSIM" record -o "$out/y.trace" -- /bin/true
	[ ! -e "$out/y.trace" ] && ok || fail "record made its trace though its side file was refused"
fi
# run -o: a result exists; -f with an interrupted run must go beside it,
# past the links at r-2.json and r-3.json.
run -o "$out/r.json" >/dev/null 2>&1
sum_r=$(md5sum <"$out/r.json")
TMPDIR=$tmp/safe timeout --preserve-status -s INT 0.3 "$VMSIM" run -w pft -t 1,2 \
	-i 50 -m 32M -q -f -o "$out/r.json" >"$tmp/o" 2>"$tmp/e"
if [ "$(md5sum <"$out/r.json")" = "$sum_r" ] && valid_result "$out/r-4.json" &&
   grep -q "'$out/r.json' is kept: this one is incomplete; the result file is in '$out/r-4.json'" "$tmp/e"; then
	ok
else
	fail "-f interrupted: $(ls "$out"; cat "$tmp/e")"
fi
# --replay-log: its beside names are links, and it is forced over a log.
replay --replay-log "$out/log.txt" >/dev/null 2>&1
expect "replay log exists" 2 "replay log '$out/log.txt' exists (use --force" \
	replay --replay-log "$out/log.txt"
expect "replay log forced" 0 "" replay --replay-log "$out/log.txt" -f
head -1 "$out/log.txt" | grep -q '^# seq thread kind' && ok || fail "replay log content"
victims_intact && ok || fail "a planted link's target changed: $(head -n1 "$victims"/v*)"
[ "$(md5sum <"$out/in.trace")" = "$sum_in" ] && ok || fail "the input trace changed"

# 3. The replay log onto its own input, a device, a folder, another file.
expect "replay log = trace" 2 "'$out/in.trace' is an input of this run" \
	replay --replay-log "$out/in.trace"
expect "replay log = trace, forced" 2 "is an input of this run" \
	replay --replay-log "$out/in.trace" -f
ln -s in.trace "$out/in-link.trace"
expect "replay log = a link to the trace" 2 "is a symbolic link" \
	replay --replay-log "$out/in-link.trace" -f
expect "replay log onto /dev/full" 2 "'/dev/full' is a character device" \
	replay --replay-log /dev/full
expect "replay log onto a folder" 2 "is a directory, not a place for a replay log" \
	replay --replay-log "$out"
expect "replay log onto notes, forced" 2 "is not a vmsim replay log" \
	replay --replay-log "$out/notes.txt" -f
[ "$(md5sum <"$out/in.trace")" = "$sum_in" ] && [ "$(cat "$out/notes.txt")" = keep ] &&
	ok || fail "a refused replay log target changed"
expect "result onto the trace" 2 "is an input of this run" \
	replay -o "$out/in.trace" -f

# 5. Two runs in two PID namespaces (both are pid 1 there) into one folder.
if unshare --pid --fork --mount-proc true 2>/dev/null; then
	mkdir "$out/ns"
	unshare --pid --fork --mount-proc "$VMSIM" run -w pft -t 1 -i 2 -m 8M -q \
		-o "$out/ns/a.json" >/dev/null 2>&1 &
	unshare --pid --fork --mount-proc "$VMSIM" run -w pft -t 1 -i 2 -m 8M -q \
		-o "$out/ns/b.json" >/dev/null 2>&1 &
	wait
	valid_result "$out/ns/a.json" && valid_result "$out/ns/b.json" &&
		[ "$(ls -A "$out/ns" | wc -l)" -eq 2 ] && ok ||
		fail "two PID namespaces: $(ls -A "$out/ns")"
else
	echo "safe_write: no PID namespaces here: that case is skipped"
fi

# 6, 9. A full disk: everything goes to $TMPDIR, exit 1, said where.
mkdir -p "$tmp/full"
if mount -t tmpfs -o size=64k tmpfs "$tmp/full" 2>/dev/null; then
	dd if=/dev/zero of="$tmp/full/filler" bs=4k 2>/dev/null
	rm -f "$tmp/safe"/*
	if [ $have_perf = 1 ]; then
		TMPDIR=$tmp/safe "$VMSIM" record -o "$tmp/full/f.trace" -- /bin/true \
			>"$tmp/o" 2>"$tmp/e"
		rc=$?
		saved=$(ls "$tmp"/safe/vmsim-f-*.trace 2>/dev/null | head -1)
		if [ $rc -eq 1 ] && [ -n "$saved" ] && valid_trace "$saved" &&
		   grep -q "cannot write '$tmp/full/f.trace': No space left on device; the trace is in '$saved'" "$tmp/e"; then
			ok
		else
			fail "record on a full disk: exit $rc, $(cat "$tmp/e")"
		fi
	fi
	cp "$out/in.trace" "$tmp/in2.trace" 2>/dev/null
	TMPDIR=$tmp/safe "$VMSIM" run -w replay --trace "$tmp/in2.trace" -i 1 -q \
		--fault-source synthetic --replay-log "$tmp/full/l.txt" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	saved=$(ls "$tmp"/safe/vmsim-l-*.txt 2>/dev/null | head -1)
	if [ $rc -eq 1 ] && [ -n "$saved" ] && head -1 "$saved" | grep -q '^# seq' &&
	   grep -q "No space left on device; the replay log is in '$saved'" "$tmp/e"; then
		ok
	else
		fail "replay log on a full disk: exit $rc, $(cat "$tmp/e")"
	fi
	# $TMPDIR full too: the result on standard output, exit 1 (issue 34:
	# the write's ENOSPC was taken for an aborted run, exit 3).
	TMPDIR=$tmp/full "$VMSIM" run -w pft -t 1 -i 1 -m 64K --warmup 0 --min-sample 0 \
		-q -o "$tmp/full/r/" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	# ... and the results directory it made, left empty, is removed.
	if [ $rc -eq 1 ] && grep -q '"vmsim_result"' "$tmp/o" && [ ! -e "$tmp/full/r" ]; then
		ok
	else
		fail "result with \$TMPDIR full: exit $rc, $(ls -d "$tmp/full/r" 2>/dev/null) $(cat "$tmp/e")"
	fi
	umount "$tmp/full"
else
	echo "safe_write: no tmpfs mount here: the full-disk cases are skipped"
fi
# 10. A results directory swapped for a link while run -o DIR/ writes
# (issue 34: the directory was checked with lstat, then opened by path,
# following the link): a thread exchanges DIR with a link to a victim
# folder as fast as it can (renameat2 RENAME_EXCHANGE) while run after
# run writes into DIR/. Nothing may ever land in the victim folder; each
# run writes its result into the real folder (removed again) or refuses
# in one line.
# SWAP_TRIES runs (default 150; the closing note of issue 34 ran 1,000).
mkdir -p "$tmp/race/victim" "$tmp/race/res"
ln -s victim "$tmp/race/swap"
python3 - "$VMSIM" "$tmp/race" "${SWAP_TRIES:-150}" >"$tmp/race.out" 2>&1 <<'PY'
import ctypes, os, subprocess, sys, threading
vmsim, d, tries = sys.argv[1], sys.argv[2], int(sys.argv[3])
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
res, swap = f"{d}/res".encode(), f"{d}/swap".encode()
real = os.open(res, os.O_RDONLY | os.O_DIRECTORY)  # whatever its name
stop = False
def swapper():
    while not stop:
        libc.renameat2(AT_FDCWD, res, AT_FDCWD, swap, RENAME_EXCHANGE)
t = threading.Thread(target=swapper)
t.start()
wrote = refused = other = 0
try:
    for i in range(tries):
        p = subprocess.run([vmsim, "run", "-w", "pft", "-t", "1", "-i", "1", "-m", "64K",
                            "--warmup", "0", "--min-sample", "0", "--fault-source",
                            "synthetic", "-q", "-o", f"{d}/res/"],
                           capture_output=True, text=True, timeout=120)
        if p.returncode == 0 and os.listdir(real) == ["rwsem.json"]:
            wrote += 1
            os.unlink("rwsem.json", dir_fd=real)
        elif p.returncode == 2 and len(p.stderr.splitlines()) == 1:
            refused += 1
        else:
            other += 1
            print("run", i, "exit", p.returncode, p.stderr.strip()[:300])
        if os.listdir(f"{d}/victim"):
            print("written outside the results directory:", os.listdir(f"{d}/victim"))
            sys.exit(1)
finally:
    stop = True
    t.join()
print(f"{tries} runs: {wrote} wrote into the folder, {refused} refused, {other} other")
sys.exit(1 if other else 0)
PY
[ $? -eq 0 ] && ok || fail "results directory swapped for a link: $(tail -n3 "$tmp/race.out")"
echo "safe_write: link swap: $(tail -n1 "$tmp/race.out")"

# 11. --force, and the result it would replace is swapped for a file that
# is no result while the run goes on (issue 34: the content, linked and
# unlinked at a random name, could no longer be linked beside, and went
# to $TMPDIR with a false error): it goes beside, exit 1.
mkdir -p "$tmp/force"
"$VMSIM" run -w pft -t 1 -i 1 -m 64K --warmup 0 --min-sample 0 -q \
	-o "$tmp/force/" >/dev/null 2>&1
"$VMSIM" run -w pft -t 1 -i 3 -m 1M --min-sample 400 -q -f -o "$tmp/force/" \
	>"$tmp/force.out" 2>"$tmp/force.err" &
fpid=$!
sleep 0.5
echo "notes, not a result" >"$tmp/force/rwsem.new" && mv "$tmp/force/rwsem.new" "$tmp/force/rwsem.json"
wait $fpid; rc=$?
[ $rc -eq 1 ] && valid_result "$tmp/force/rwsem-2.json" &&
	grep -q "^notes" "$tmp/force/rwsem.json" &&
	grep -q "rwsem.json' is no longer a vmsim file of this kind; the result file is in '.*rwsem-2.json'" "$tmp/force.err" &&
	ok || fail "--force onto a file swapped during the run: exit $rc, $(ls "$tmp/force"), $(cat "$tmp/force.err")"

suite_end
