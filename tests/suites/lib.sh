# shellcheck shell=bash
# Helpers the shell suites share; sourced, never run.

# proc_stat PID: the fields of /proc/PID/stat after the command's closing
# parenthesis (a command may hold spaces and parentheses): the 1st is the
# state, the 4th the session, the 12th and 13th utime and stime in
# ticks. Fails if PID is gone.
proc_stat() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	echo "${st##*) }"
}
