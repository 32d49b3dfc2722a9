#!/usr/bin/env bash
# vmsim record and replay against a program whose activity is known
# (tests/suites/trace_prog.c), issue 15's acceptance 1 and 2:
#  - the recorded trace holds, in the program's window, exactly the calls
#    (arguments, results) and faults the program made, thread by thread;
#  - replaying it (check mode: --replay-log) under every scheme and both
#    fault sources gives, after every call, the VMA count the program saw
#    in /proc/self/maps, and one fault for every recorded fault.
# Skips (77) where perf is missing or may not read tracepoints.
# usage: record.sh VMSIM TRACE_PROG
set -euo pipefail
vmsim=$1 prog=$2
command -v perf >/dev/null || { echo "record: perf is not installed: skip"; exit 77; }
para=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" -ne 0 ] && [ "$para" -gt -1 ]; then
	echo "record: perf may not read tracepoints here: skip"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
suite=record
# shellcheck source=tests/suites/lib.sh
. "$(dirname "$0")/lib.sh"

"$vmsim" record -o "$tmp/t.trace" -- "$prog" "$tmp/expected" >"$tmp/rec.out" 2>"$tmp/rec.err" ||
	{ cat "$tmp/rec.err" >&2; die "vmsim record exited $?"; }
grep -q '^recorded [0-9]* events of 2 threads' "$tmp/rec.err" || die "$(cat "$tmp/rec.err")"
# vmsim's own lines go to stderr: standard output is the program's
# (issue 64: chromium --dump-dom's file began with vmsim's summary).
! grep -q '^recorded \|^host mmap_lock' "$tmp/rec.out" || die "record's lines on stdout: $(head -2 "$tmp/rec.out")"

# 1. The window's events, without their times, are the program's list.
grep -v ' vmas ' "$tmp/expected" >"$tmp/want"
"$vmsim" trace show "$tmp/t.trace" |
	awk '$4 ~ /^0x3000/ { $1 = ""; sub(/^ +/, ""); print }' |
	sed -E 's/ +/ /g' >"$tmp/got"
sed -E 's/ +/ /g' "$tmp/want" >"$tmp/want1"
diff "$tmp/want1" "$tmp/got" >&2 || die "the trace's window events differ from the program's"
n=$(wc -l <"$tmp/got")
[ "$n" -eq 23 ] || die "only $n window events"
echo "record: the trace holds the program's $n window events exactly"
# The host's mmap_lock beside it (where the kernel has mmap_lock:*): the
# program's 12 window mmaps, mprotects and munmaps take it for writing.
if [ -d /sys/kernel/tracing/events/mmap_lock ]; then
	grep -q '^host mmap_lock write' "$tmp/rec.err" || die "no host lock line"
	python3 - "$tmp/t.trace.mmap_lock.json" <<'PY' || die "host lock figures"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["write"]["acquired"] >= 12, r
assert r["write"]["hold_ns"] > 0 and r["read"]["acquired"] >= 0, r
# Each thread's waits against its run, and the longest waits (issue 64):
# the program's two threads, and no wait longer than all of them.
th = r["threads"]
assert len(th) == 2 and all(t["run_ns"] > 0 for t in th), th
total = sum(t["wait_ns"]["read"] + t["wait_ns"]["write"] for t in th)
# (The address space's figures keep its exec's first acquisitions, which
# came before the exec event; a thread's begin at the exec.)
assert 0 < total <= r["read"]["wait_ns"] + r["write"]["wait_ns"], (total, r)
assert all(w["wait_ns"] <= total and w["waiter"]["tid"] in
           {t["tid"] for t in th} for w in r["longest_waits"]), r["longest_waits"]
PY
fi

# 1b. Through a shell that execs it: the trace starts again at the exec
# (the shell's address space is another), and holds the same events.
"$vmsim" record -o "$tmp/x.trace" -- bash -c 'x=$(echo shell); exec "$0" "$1"' \
	"$prog" "$tmp/expected2" >"$tmp/x.out" 2>"$tmp/x.err" || die "record via bash exited $?"
grep -q "exec'd $prog: the trace holds what came after" "$tmp/x.err" || die "no exec said: $(cat "$tmp/x.err")"
# (Into a file first: vmsim's stdout is line-buffered, and grep -q leaving
# at its match would kill it with SIGPIPE, failing the pipeline.)
"$vmsim" trace info "$tmp/x.trace" >"$tmp/x.info" 2>&1 || die "trace info: $(cat "$tmp/x.info")"
grep -q "^command   bash .*(after exec of $prog)" "$tmp/x.info" ||
	die "exec comment: $(head -2 "$tmp/x.info"); record said: $(cat "$tmp/x.err")"
"$vmsim" trace show "$tmp/x.trace" |
	awk '$4 ~ /^0x3000/ { $1 = ""; sub(/^ +/, ""); print }' | sed -E 's/ +/ /g' >"$tmp/got2"
diff "$tmp/want1" "$tmp/got2" >&2 || die "the exec'd program's window events differ"
echo "record: through a shell's exec, the same $n events"

# 1c. Through a shell that forks it (issue 52: make, sh -c, compiler
# drivers): the trace is the shell's, and the message names the child
# and how to follow it; --follow NAME then records the child's events.
name=$(basename "$prog" | cut -c1-15)
"$vmsim" record -o "$tmp/fork0.trace" -- bash -c '"$0" "$1"; true' "$prog" "$tmp/expected3" \
	>"$tmp/fork0.out" 2>"$tmp/fork0.err" || die "record via a forking bash exited $?"
grep -q "other process.* left out (a trace is one address space): $name pid [0-9]* (fork:1): [0-9]*.*; --follow $name records that one instead" "$tmp/fork0.err" ||
	die "the child not named: $(cat "$tmp/fork0.err")"
"$vmsim" record -o "$tmp/fork.trace" --follow "$name" -- bash -c '"$0" "$1"; true' "$prog" "$tmp/expected3" \
	>"$tmp/fork.out" 2>"$tmp/fork.err" || die "record --follow exited $?: $(cat "$tmp/fork.err")"
"$vmsim" trace info "$tmp/fork.trace" >"$tmp/fork.info" 2>&1 || die "trace info: $(cat "$tmp/fork.info")"
grep -q "^command   bash .*(its process $name: --follow)" "$tmp/fork.info" || die "--follow comment: $(head -2 "$tmp/fork.info")"
"$vmsim" trace show "$tmp/fork.trace" |
	awk '$4 ~ /^0x3000/ { $1 = ""; sub(/^ +/, ""); print }' | sed -E 's/ +/ /g' >"$tmp/fork.got"
diff "$tmp/want1" "$tmp/fork.got" >&2 || die "the followed child's window events differ"
rc=0
"$vmsim" record -o "$tmp/nofollow.trace" --follow no-such-prog -- bash -c '"$0" "$1"; true' "$prog" "$tmp/expected3" \
	>"$tmp/nofollow.out" 2>"$tmp/nofollow.err" || rc=$?
[ $rc -eq 1 ] && grep -q "nothing recorded: no process exec'd no-such-prog" "$tmp/nofollow.err" && [ ! -e "$tmp/nofollow.trace" ] ||
	die "--follow of a name no process ran: $(cat "$tmp/nofollow.err")"
echo "record: through a shell's fork, --follow $name records the same $n events"

# 1d. A child that forks without exec (issue 64: a browser's zygote's
# renderers): named by its number, and --follow fork:N records it,
# beginning with what it inherited, so that its writes to the parent's
# window replay as faults in a mapping.
"$vmsim" record -o "$tmp/zf0.trace" -- "$prog" --fork >"$tmp/zf0.out" 2>"$tmp/zf0.err" ||
	die "record of a forking program exited $?: $(cat "$tmp/zf0.err")"
grep -q "left out (a trace is one address space): $name pid [0-9]* (fork:1): [0-9]*; --follow fork:1 records that one instead (forked without an exec" "$tmp/zf0.err" ||
	die "the forked child not named by its number: $(cat "$tmp/zf0.err")"
"$vmsim" record -o "$tmp/zf.trace" --follow fork:1 -- "$prog" --fork >"$tmp/zf.out" 2>"$tmp/zf.err" ||
	die "record --follow fork:1 exited $?: $(cat "$tmp/zf.err")"
grep -q "of the mmaps are what its parent (pid [0-9]*) had mapped at the fork" "$tmp/zf.err" ||
	die "the inherited mappings not said: $(cat "$tmp/zf.err")"
"$vmsim" trace info "$tmp/zf.trace" >"$tmp/zf.info" 2>&1 || die "trace info: $(cat "$tmp/zf.info")"
grep -q "^command   .*(its process fork:1: --follow)" "$tmp/zf.info" || die "fork:1 comment: $(head -2 "$tmp/zf.info")"
"$vmsim" trace show "$tmp/zf.trace" | awk '$4 ~ /^0x3000/ { print $3, $4, $6 }' >"$tmp/zf.got"
python3 - "$tmp/zf.got" <<'PY' || die "the followed fork's window: $(cat "$tmp/zf.got")"
import sys
ev = [l.split() for l in open(sys.argv[1])]
# Inherited: the parent's 16 pages as one mapping, first; then the
# child's 16 writes to them, its own mmap of 4 pages and their writes.
assert ev[0] == ["mmap", "0x300000000000", "0x100000"], ev[0]
faults = [e[1] for e in ev if e[0] == "fault"]
want = ["0x3000000%x0000" % i for i in range(16)]
assert faults[:16] == want, faults
assert ["mmap", "0x300001000000", "0x40000"] in ev, ev
assert len(faults) == 20, faults
PY
"$vmsim" run --ceiling off -w replay --trace "$tmp/zf.trace" -l rwsem -i 1 --min-sample 0 -q --brief \
	--replay-log "$tmp/zf.log" -o "$tmp/zf.json" -f >"$tmp/zf.run" 2>&1 ||
	die "replay of the followed fork exited $?: $(cat "$tmp/zf.run")"
got=$(awk '$4 ~ /^0x3000/ && $3 == "fault" && $5 == 1' "$tmp/zf.log" | wc -l)
[ "$got" -eq 20 ] || die "the followed fork's replay made $got window faults, not 20"
rc=0
"$vmsim" record -o "$tmp/zf9.trace" --follow fork:9 -- "$prog" --fork >/dev/null 2>"$tmp/zf9.err" || rc=$?
[ $rc -eq 1 ] && grep -q "nothing recorded: the command made 1 process, not 9" "$tmp/zf9.err" ||
	die "--follow fork:9 of a program that made 1: rc $rc: $(cat "$tmp/zf9.err")"
echo "record: a child forked without exec, --follow fork:1: its 16 inherited pages and 4 own replay"

# 2. Replay: VMA count after every call, one fault per recorded fault.
awk '$2 == "vmas" { print $3 }' "$tmp/expected" >"$tmp/want_vmas"
nf=$(grep -c ' fault ' "$tmp/want")
for src in uffd synthetic; do
	for l in rwsem range range-full pervma spf; do
		"$vmsim" run --ceiling off -w replay --trace "$tmp/t.trace" -l "$l" -i 1 --min-sample 0 -q \
			--brief --fault-source "$src" --replay-log "$tmp/log" \
			-o "$tmp/r.json" -f >"$tmp/run.out" 2>&1 ||
			{ cat "$tmp/run.out" >&2; die "$l/$src: replay exited non-zero"; }
		awk '$4 ~ /^0x3000/ && $3 != "fault" { print $5 }' "$tmp/log" >"$tmp/got_vmas"
		diff "$tmp/want_vmas" "$tmp/got_vmas" >&2 ||
			die "$l/$src: VMA counts after the calls differ from the program's"
		got=$(awk '$4 ~ /^0x3000/ && $3 == "fault" && $5 == 1' "$tmp/log" | wc -l)
		all=$(awk '$4 ~ /^0x3000/ && $3 == "fault"' "$tmp/log" | wc -l)
		[ "$got" -eq "$nf" ] && [ "$all" -eq "$nf" ] ||
			die "$l/$src: $got of $all replayed window faults faulted, $nf recorded"
		grep -q '"workload": *"replay"' "$tmp/r.json" || die "$l/$src: no result"
	done
done
echo "record: replay matches the program's VMA counts and faults under 5 schemes x 2 sources"

# 2b. Kernel-mode faults (issue 36): a read(2) into a fresh buffer faults
# in each of its 256 pages from the kernel's copy. They are in the trace
# (flagged kernel), the host took its mmap_lock for each (kernel_fault in
# the side file and trace info's table), and a pervma replay takes the mm
# lock for each without trying the VMA lock (vma_lock_kernel), under both
# fault sources; the read ratio against the replayable part is near 1.
head -c 1048576 /dev/urandom >"$tmp/in1m"
"$vmsim" record -o "$tmp/k.trace" -- python3 "$(dirname "$0")/read_into_buffer.py" "$tmp/in1m" \
	>"$tmp/k.out" 2>"$tmp/k.err" || { cat "$tmp/k.err" >&2; die "record of a read(2) exited $?"; }
buf=$(awk '$1 == "buffer" && $3 == 1048576 { print $2 }' "$tmp/k.out")
[ -n "$buf" ] || die "the read(2) program: $(cat "$tmp/k.out" "$tmp/k.err")"
"$vmsim" trace show "$tmp/k.trace" >"$tmp/k.show"
nk=$(python3 - "$tmp/k.show" "$buf" <<'PY'
import sys
a, n = int(sys.argv[2], 16), 0
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 4 and f[2] == "fault" and "kernel" in f[4:] and a <= int(f[3], 16) < a + (1 << 20):
        n += 1
print(n)
PY
)
[ "$nk" -eq 256 ] || die "kernel-mode faults in the buffer: $nk of 256"
"$vmsim" trace info "$tmp/k.trace" >"$tmp/k.info" 2>&1 || die "trace info: $(cat "$tmp/k.info")"
kall=$(sed -n 's/.*kernel-mode \([0-9]*\)).*/\1/p' "$tmp/k.info")
[ "${kall:-0}" -ge 256 ] || die "trace info: kernel-mode ${kall:-none}"
if [ -d /sys/kernel/tracing/events/mmap_lock ]; then
	hk=$(awk '$1 == "kernel_fault" { print $2 }' "$tmp/k.info")
	[ "${hk:-0}" -ge 256 ] && grep -q '^  replayable ' "$tmp/k.info" ||
		die "trace info's cause table: kernel_fault ${hk:-none}: $(tail -14 "$tmp/k.info")"
fi
for src in synthetic uffd; do
	"$vmsim" run --ceiling off -w replay --trace "$tmp/k.trace" -l pervma -i 1 --min-sample 0 -q \
		--brief --fault-source "$src" -o "$tmp/k.json" -f >"$tmp/kr.out" 2>&1 ||
		{ cat "$tmp/kr.out" >&2; die "pervma/$src: replay of the read(2) exited non-zero"; }
	python3 - "$tmp/k.json" "$kall" "$src" <<'PY' || die "pervma/$src: kernel-mode faults not on the mm lock"
import json, sys
p = json.load(open(sys.argv[1]))["results"][0]
kall, passes = int(sys.argv[2]), p["counted_passes"]
kern = p["scheme_counters"]["vma_lock_kernel"] / passes
reads = p["lockstat"]["mmap_lock"]["read"]["acquisitions"] / passes
assert 256 <= kern <= kall, (kern, kall)
assert reads >= kern, (reads, kern)
if sys.argv[3] == "uffd":
    assert p["uffd"]["kernel_found"] == p["scheme_counters"]["vma_lock_kernel"], p["uffd"]
h = p.get("host_mmap_lock")
if h:
    r = h["read"]["ratio_replayable"]
    assert 0.7 <= r <= 1.3, h
PY
done
echo "record: a read(2) into a fresh buffer: 256 kernel-mode faults recorded, on the mm lock in a pervma replay"

# 3. -p PID --duration: a running program's calls and faults, for a while.
"$prog" --loop 4 &
loop=$!
sleep 0.5
"$vmsim" record -o "$tmp/p.trace" -p "$loop" --duration 1 >"$tmp/p.out" 2>&1 ||
	{ cat "$tmp/p.out" >&2; die "record -p exited non-zero"; }
wait "$loop"
"$vmsim" trace info "$tmp/p.trace" >"$tmp/p.info"
# (less the mappings it had at attach, put at the trace's start)
pre=$(sed -n "s/^vmsim: record: \([0-9]*\) of the mmaps are the process's mappings.*/\1/p" "$tmp/p.out")
maps=$(( $(awk '$1 == "mmap" { print $2 }' "$tmp/p.info") - ${pre:-0} ))
unmaps=$(awk '$1 == "munmap" { print $2 }' "$tmp/p.info")
faults=$(awk '$1 == "fault" { print $2 }' "$tmp/p.info")
[ "$maps" -ge 20 ] && [ $((faults - 2 * maps)) -ge -2 ] && [ $((faults - 2 * maps)) -le 2 ] &&
	[ $((unmaps - maps)) -ge -1 ] && [ $((unmaps - maps)) -le 1 ] ||
	die "record -p: $maps mmaps, $unmaps munmaps, $faults faults"
grep -q "^command   pid $loop for 1 s" "$tmp/p.info" || die "record -p: $(head -2 "$tmp/p.info")"
# Its mappings at attach are in the trace (issue 64: 11,070 of 11,180
# events of an attach lay outside any mapping it knew), so it replays.
grep -q "mmaps are the process's mappings when the recording began" "$tmp/p.out" ||
	die "record -p: no snapshot of its maps: $(cat "$tmp/p.out")"
"$vmsim" run -w replay --trace "$tmp/p.trace" -l rwsem -i 1 --min-sample 0 --ceiling off \
	--fault-source synthetic >"$tmp/pr.out" 2>&1 &&
	sed -n 's/^replay .*, \([0-9]*\) events: .* \([0-9]*\) events outside any mapping.*/\1 \2/p' "$tmp/pr.out" |
	awk '{ exit !($1 > 0 && $2 * 20 < $1) }' ||
	die "record -p's trace does not replay whole: $(grep -i 'replay\|vmsim:' "$tmp/pr.out" | head -3)"
echo "record: -p recorded $maps mmaps, $unmaps munmaps and $faults faults of a running program"

# 4. Three records onto one name at once (issue 34: the side files of the
# two that went beside were refused, "exists"): each trace lands, and
# each has its own side file beside it.
for i in 1 2 3; do
	"$vmsim" record -o "$tmp/c.trace" -- python3 -c "import time; time.sleep(0.3)" \
		>/dev/null 2>"$tmp/c$i.err" &
done
wait
for t in c c-2 c-3; do
	"$vmsim" trace info "$tmp/$t.trace" >/dev/null 2>&1 ||
		die "concurrent records: no $t.trace: $(cat "$tmp"/c?.err)"
	[ -f "$tmp/$t.trace.mmap_lock.json" ] || ! grep -q mmap_lock /sys/kernel/tracing/available_events 2>/dev/null ||
		die "concurrent records: no $t.trace.mmap_lock.json: $(cat "$tmp"/c?.err)"
done
echo "record: three records onto one name: c, c-2 and c-3, each with its side file"

# 5. A perf script that hangs is ended at --convert-timeout, with what it
# had converted kept and said, exit 1, nothing of it left running.
mkdir -p "$tmp/fakebin"
printf '#!/bin/sh\nif [ "$1" = script ]; then echo $$ >"%s/script.pid"; exec sleep 3600; fi\nexec %s "$@"\n' \
	"$tmp" "$(command -v perf)" >"$tmp/fakebin/perf"
chmod +x "$tmp/fakebin/perf"
start=$(date +%s)
rc=0
PATH=$tmp/fakebin:$PATH "$vmsim" record -o "$tmp/hang.trace" --convert-timeout 2 -- /bin/true \
	>/dev/null 2>"$tmp/hang.err" || rc=$?
took=$(($(date +%s) - start))
spid=$(cat "$tmp/script.pid" 2>/dev/null)
case $(ps -o stat= -p "${spid:-0}" 2>/dev/null) in ""|Z*) gone=1;; *) gone=0;; esac
[ $rc -eq 1 ] && [ $took -lt 30 ] && [ $gone = 1 ] &&
	grep -q "converting stopped by its deadline" "$tmp/hang.err" ||
	die "hung perf script: exit $rc after $took s, gone=$gone: $(cat "$tmp/hang.err")"
[ $gone = 1 ] || kill "$spid" 2>/dev/null
echo "record: a hung perf script was ended at --convert-timeout ($took s)"

# A full $TMPDIR (a 256 KiB tmpfs, filled): "nothing recorded" says the
# disk is full and where, not only that perf wrote no data (issue 48).
# Needs mount (root); skipped quietly without it.
if mkdir "$tmp/full" && mount -t tmpfs -o size=256k tmpfs "$tmp/full" 2>/dev/null; then
	dd if=/dev/zero of="$tmp/full/fill" bs=4k 2>/dev/null || true
	rc=0
	TMPDIR=$tmp/full "$vmsim" record -o "$tmp/f.trace" -- true >/dev/null 2>"$tmp/full.err" || rc=$?
	umount "$tmp/full"
	[ $rc -eq 1 ] && [ "$(grep -c . "$tmp/full.err")" -eq 1 ] &&
		grep -q "nothing recorded: the file system of '$tmp/full/vmsim-record-[0-9a-f]*' is full" "$tmp/full.err" ||
		die "record with a full TMPDIR: exit $rc: $(cat "$tmp/full.err")"
	echo "record: a full TMPDIR is said as such"
fi
