#!/usr/bin/env bash
# Result files: a completed run's measurement is never lost and nothing
# that is not a vmsim result is ever replaced.
#  - two runs given one --json name at once: both results exist (the
#    second under a fresh name beside the first, and it says so);
#  - the directory removed during the run: the result goes to $TMPDIR
#    and the message says where and why;
#  - a full file system (a small tmpfs, if this machine lets us mount
#    one): the real errno (No space left on device), result in $TMPDIR;
#  - --force replaces a vmsim result; files that look like another
#    vmsim's temporary files are never touched (it may be alive in
#    another PID namespace).
# (The refused targets — links, devices, FIFOs, directories, other
# files — are rows of bad_inputs.tsv, which checks they are unchanged.)
set -u
VMSIM=${1:?usage: result_files.sh path/to/vmsim}
tmp=$(mktemp -d)
trap 'umount "$tmp/full" 2>/dev/null; rm -rf "$tmp"' EXIT
suite=result_files
# shellcheck source=tests/suites/lib.sh
. "$(dirname "$0")/lib.sh"
valid() {    # valid FILE: a complete vmsim result
	python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['vmsim_result'] and r['complete'] and r['results']" "$1" 2>/dev/null
}
run() { "$VMSIM" run -w pft -t 1 -i 2 -m 8M -q "$@"; }

# The race: both start before either has published.
run -o "$tmp/race.json" >"$tmp/out1" 2>"$tmp/err1" &
run -o "$tmp/race.json" >"$tmp/out2" 2>"$tmp/err2" &
wait
if valid "$tmp/race.json" && valid "$tmp/race-2.json" &&
   cat "$tmp/err1" "$tmp/err2" | grep -q "was created while vmsim ran; the result file is in '$tmp/race-2.json'" &&
   cat "$tmp/out1" "$tmp/out2" | grep -q "result written to $tmp/race-2.json"; then
	ok
else
	fail "two runs on one name: $(ls "$tmp"; cat "$tmp"/err?)"
fi

# The directory removed during the run.
mkdir -p "$tmp/gone" "$tmp/safe"
# A loop workload lasts its --duration however fast the machine is (a
# pft run was over before the 0.5 s on a fast one).
long_run() {
	TMPDIR=$tmp/safe "$VMSIM" run -w page_fault1 -t 1 -m 1M --duration 4 \
		--warmup 0 --interval 500 -q -o "$1"
}
long_run "$tmp/gone/r.json" >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 0.5
rm -rf "$tmp/gone"
wait $pid
rc=$?
saved=$(ls "$tmp"/safe/vmsim-r-*.json 2>/dev/null | head -1)
if [ $rc -eq 1 ] && [ -n "$saved" ] && valid "$saved" &&
   grep -q "cannot write '$tmp/gone/r.json': No such file or directory; the result file is in '$saved'" "$tmp/err"; then
	ok
else
	fail "directory removed: exit $rc, $(cat "$tmp/err")"
fi

# A full file system.
mkdir -p "$tmp/full"
if mount -t tmpfs -o size=64k tmpfs "$tmp/full" 2>/dev/null; then
	rm -f "$tmp"/safe/*
	long_run "$tmp/full/r.json" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	sleep 0.5
	dd if=/dev/zero of="$tmp/full/filler" bs=4k 2>/dev/null
	wait $pid
	rc=$?
	saved=$(ls "$tmp"/safe/vmsim-r-*.json 2>/dev/null | head -1)
	if [ $rc -eq 1 ] && [ -n "$saved" ] && valid "$saved" &&
	   grep -q "No space left on device; the result file is in '$saved'" "$tmp/err"; then
		ok
	else
		fail "full file system: exit $rc, $(cat "$tmp/err")"
	fi
	umount "$tmp/full"
else
	echo "result_files: no tmpfs mount here; the full-disk case is not tried"
fi

# --force replaces a result; another process's temporary-looking files
# are left alone.
run -o "$tmp/f.json" >/dev/null 2>&1
before=$(md5sum <"$tmp/f.json")
echo theirs >"$tmp/.vmsim-999999999-0.tmp"
echo theirs >"$tmp/old.json.tmp.999999999"
if run -o "$tmp/f.json" -f >/dev/null 2>&1 && valid "$tmp/f.json" &&
   [ "$(md5sum <"$tmp/f.json")" != "$before" ] &&
   [ "$(cat "$tmp/.vmsim-999999999-0.tmp")" = theirs ] &&
   [ "$(cat "$tmp/old.json.tmp.999999999")" = theirs ] &&
   [ -z "$(ls -A "$tmp" | grep -v -e '^f.json$' -e '^race' -e '^safe$' -e '^full$' -e '^out' -e '^err' -e '^\.vmsim-999999999-0.tmp$' -e '^old.json.tmp.999999999$')" ]; then
	ok
else
	fail "--force on a result, or another's temporary files: $(ls -a "$tmp")"
fi
# compare of a file with 20,000 task counts: linear, not quadratic (the
# quadratic build took over 40 s; this one about 1.5 s, 60 s is a hang).
python3 - "$(dirname "$0")/../data/compare/base.json" "$tmp/big.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p0 = r["results"][0]
r["results"] = [dict(p0, tasks=t) for t in range(1, 20001)]
json.dump(r, open(sys.argv[2], "w"))
PY
if timeout 60 "$VMSIM" compare "$tmp/big.json" "$tmp/big.json" >"$tmp/out" 2>&1 &&
   [ "$(grep -c '^Hmean *faults/sec-' "$tmp/out")" -eq 20000 ]; then
	ok
else
	fail "compare of 20,000 task counts: exit $?, $(head -c 300 "$tmp/out")"
fi
rm -f "$tmp/big.json" "$tmp/out"
suite_end
