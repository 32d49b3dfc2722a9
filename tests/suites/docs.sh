#!/usr/bin/env bash
# The README a newcomer reads, and the reference beside it (issue 26):
#  - README.md is at most 300 lines, and its two set-up commands and its
#    three workflows come within its first 120;
#  - every option that a command's --help prints is in docs/usage.md;
#  - every key of the result file's schema is in docs/results.md;
#  - every path of the repository that docs or comments name exists;
#  - every command the README shows runs, in order, in a scratch folder
#    (vmsim on PATH; $OLD is this same binary): each exits 0 — a gate
#    with its verdict after three rounds of 8 MiB runs (a whole gate is
#    20 runs: gate.sh tests the gate; here the README's words are checked).
set -u
VMSIM=${1:?usage: docs.sh path/to/vmsim}
VMSIM=$(realpath "$VMSIM")
root=$(cd "$(dirname "$0")/../.." && pwd)
readme=$root/README.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
suite=docs
# shellcheck source=tests/suites/lib.sh
. "$(dirname "$0")/lib.sh"

n=$(wc -l <"$readme")
[ "$n" -le 300 ] && ok || fail "README.md has $n lines, more than 300"
for want in "scripts/demo.sh" "scripts/test.sh" "### Compare the lock schemes" \
	    "### Record a program" "### Gate a change in CI"; do
	line=$(grep -nF -m1 -- "$want" "$readme" | cut -d: -f1)
	[ -n "$line" ] && [ "$line" -le 120 ] && ok ||
		fail "'$want' not within the README's first 120 lines (line ${line:-none})"
done

# Every option of every command's --help is in the reference.
for c in run compare report record trace bench list check gate rerun calibrate; do
	for opt in $("$VMSIM" "$c" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		[ "$opt" = --help ] && continue
		grep -qF -- "$opt" "$root/docs/usage.md" && ok ||
			fail "vmsim $c --help has $opt, docs/usage.md does not"
	done
done

# Every key of the result file's schema (resfile/schema.h, the one table
# the writer and the readers name keys by) is documented in
# docs/results.md.
for key in $(sed -n 's/^#define RK_[A-Z0-9_]* *"\([a-z0-9_]*\)"$/\1/p' "$root/resfile/schema.h"); do
	grep -qw -- "$key" "$root/docs/results.md" && ok ||
		fail "result key '$key' (resfile/schema.h) is not in docs/results.md"
done
[ "$(grep -c '^#define RK_' "$root/resfile/schema.h")" -gt 100 ] && ok ||
	fail "resfile/schema.h names fewer keys than the result file has"

# Every path of this repository that docs/, the README or a comment
# names exists (as the kernel's documentation-file-ref-check does):
# a word that starts with one of the repository's top-level folders,
# found from the root or from the naming file's folder. mm/, kernel/,
# include/ are the kernel's (vmsim has none of them at the top); the
# guides' example files are the ones a reader is told to write.
python3 - "$root" <<'PY' && ok || fail "paths named that do not exist"
import glob, os, re, subprocess, sys
root = sys.argv[1]
files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True,
                       text=True).stdout.split()
# Every top-level folder of the repository, as it is now: a new layer
# is checked the day it is made.
tops = sorted({f.split("/")[0] for f in files if "/" in f and
               not f.startswith(".")})
word = re.compile(r'(?<![\w./-])((?:' + "|".join(map(re.escape, tops)) +
                  r')/[A-Za-z0-9_*.+/-]*[A-Za-z0-9_*])')
written_by_reader = {"locks/exclusive.c", "locks/biglock.c",
                     "workloads/pft_read.c"}
bad = []
for f in files:
    if f.startswith("tests/data/") or not f.endswith(
            (".c", ".h", ".md", ".sh", ".py", ".txt", ".def", ".tsv", ".cmake")) \
            and os.path.basename(f) != "CMakeLists.txt":
        continue
    for n, line in enumerate(open(os.path.join(root, f), errors="replace"), 1):
        for m in word.finditer(line):
            p = m.group(1).rstrip(".")
            # From the root, or from the naming file's own folder (a
            # CMakeLists.txt names its folder's files so).
            if p in written_by_reader or glob.glob(os.path.join(root, p)) \
                    or glob.glob(os.path.join(root, os.path.dirname(f), p)):
                continue
            bad.append(f"{f}:{n}: {p}")
if bad:
    print("named but not in the repository:", *bad[:20], sep="\n  ")
    sys.exit(1)
PY

# The README's commands: every line of its sh blocks but the set-up
# commands (scripts/…: the suite is one of them), the install's (cmake,
# cpack and apt-get install: cli_docs installs and packages into its
# scratch folder; this test installs nothing on the machine) and
# comments, in order, in one scratch folder, with build/vmsim this binary.
mkdir -p "$tmp/bin" "$tmp/work/build"
ln -s "$VMSIM" "$tmp/bin/vmsim"
ln -s "$VMSIM" "$tmp/work/build/vmsim"
awk '/^```sh/ { on = 1; next } /^```/ { on = 0 }
     on && !/^(scripts\/|#|$|OLD=\$\(scripts\/build-rev.sh|cmake |cd build && cpack)/ { print }' \
	"$readme" >"$tmp/commands"
grep -q '^vmsim ' "$tmp/commands" && ok || fail "no vmsim command in the README"
# build-rev.sh (what makes $OLD) answers a commit that is not there with
# one line and exit 2; building one is left to the README's reader.
"$root/scripts/build-rev.sh" no-such-commit-xyz >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] &&
	ok || fail "build-rev.sh no-such-commit-xyz: $(cat "$tmp/err")"
cd "$tmp/work" || exit 1
while IFS= read -r cmd; do
	cmd=${cmd%%  #*}
	case $cmd in
	"vmsim gate"*)
		# Three rounds (the fewest that judge), not the README's ten,
		# of 3 samples of 8 MiB, not 5 of 64 (a whole gate is 20 runs:
		# gate.sh tests gates; here the command's words are checked):
		# a verdict, or CANNOT JUDGE said (rounds too few to judge).
		cmd="${cmd/ -- / --rounds 3 -- } -m 8M -i 3"
		PATH=$tmp/bin:$PATH OLD=$VMSIM timeout 300 \
			bash -c "$cmd" >out 2>err </dev/null
		rc=$?
		last=$(tail -1 out)
		if { [ $rc -eq 0 ] || [ $rc -eq 1 ]; } &&
		   echo "$last" | grep -q "^PASS\|^REGRESSION"; then
			ok
		elif [ $rc -eq 2 ] && echo "$last" | grep -q "^CANNOT JUDGE: "; then
			ok
		else
			fail "$cmd: exit $rc: $(tail -3 err) $last"
		fi ;;
	*)
		# A run's words; the harness's ceiling (pft under none, measured
		# before it) is cli.sh's to check.
		case $cmd in
		*"|"*) ;;
		"vmsim run "*) cmd="$cmd --ceiling off" ;;
		esac
		PATH=$tmp/bin:$PATH OLD=$VMSIM bash -c "$cmd" >out 2>err </dev/null &&
			ok || fail "$cmd: exit $?: $(tail -3 err)" ;;
	esac
done <"$tmp/commands"
suite_end
