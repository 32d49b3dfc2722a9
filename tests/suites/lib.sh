# shellcheck shell=bash
# Helpers the shell suites share; sourced, never run.
#
# The counters and the two ways to fail: fail counts and goes on, die
# stops the suite (a check everything after it needs). A suite that sets
# suite=NAME has its lines say it ("NAME: FAIL: ..."); suite_end prints
# "NAME: P passed, F failed" and is the suite's status.
fails=0 passes=0
ok() { passes=$((passes + 1)); }
fail() { echo "${suite:+$suite: }FAIL: $*"; fails=$((fails + 1)); }
die() { echo "${suite:+$suite: }FAIL: $*" >&2; exit 1; }
suite_end() {
	echo "${suite:-suite}: $passes passed, $fails failed"
	[ "$fails" -eq 0 ]
}

# json_get FILE PATH: the value at PATH (dots and list indices:
# results.0.points.0.mean) of the JSON in FILE, as JSON for an object
# or a list, else as text; fails (status 1, nothing printed) where the
# path is not there.
json_get() {
	python3 - "$1" "$2" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split(".") if sys.argv[2] else []:
    try:
        v = v[int(k)] if isinstance(v, list) else v[k]
    except (KeyError, IndexError, ValueError, TypeError):
        sys.exit(1)
print(json.dumps(v) if isinstance(v, (dict, list)) else v)
PY
}

# proc_stat PID: the fields of /proc/PID/stat after the command's closing
# parenthesis (a command may hold spaces and parentheses): the 1st is the
# state, the 4th the session, the 12th and 13th utime and stime in
# ticks. Fails if PID is gone.
proc_stat() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	echo "${st##*) }"
}
