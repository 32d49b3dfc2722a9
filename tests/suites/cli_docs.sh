#!/usr/bin/env bash
# The man pages, the bash completion and docs/usage.md's option tables,
# made from the commands' own tables (issues 52, 65): every option of
# every command's table (`vmsim list --options`) is in its command's
# page and is completed, with the names it takes, and each command
# completes; the pages render without a warning; usage.md's tables are
# the tables' (a stale one is found); and `cmake --install` and
# `cpack -G DEB` hold the binaries, the pages and the completion.
#   cli_docs.sh SOURCE_DIR BUILD_DIR
set -u
src=${1:?usage: cli_docs.sh SOURCE_DIR BUILD_DIR}
build=${2:?build dir}
vmsim=$build/vmsim doc=$build/doc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
suite=cli_docs
# shellcheck source=tests/suites/lib.sh
. "$(dirname "$0")/lib.sh"

"$vmsim" list --options >"$tmp/tables" || { echo "cli_docs: list --options failed"; exit 1; }
[ -s "$doc/vmsim.bash" ] && [ -s "$doc/man1/vmsim.1" ] ||
	{ echo "cli_docs: nothing generated in $doc"; exit 1; }

# 1. Pages: one a command, each naming every option of its table.
ncmd=0 nopt=0
while IFS=$'\t' read -r kind cmd sub long short arg values metavar okind bounds help; do
	page=$doc/man1/vmsim-$cmd.1
	case $kind in
	command)
		ncmd=$((ncmd + 1))
		[ -s "$page" ] || fail "no page for $cmd"
		grep -q "vmsim\\\\-$cmd" "$doc/man1/vmsim.1" || fail "vmsim.1 does not name $cmd" ;;
	sub)
		grep -q "vmsim $cmd $sub" "$page" || fail "$cmd's page: no synopsis of $sub" ;;
	option)
		nopt=$((nopt + 1))
		# roff's minus signs: \-\-name (--help is the page itself)
		[ "$long" = --help ] || grep -qF -- "\\-\\-${long#--}" "$page" ||
			fail "$cmd's page lacks $long"
		# its bounds, as --help says them (roff's minus signs aside)
		[ "$bounds" = - ] || grep -qF -- "${bounds//-/\\-}" "$page" ||
			fail "$cmd's page lacks $long's bounds '$bounds'" ;;
	esac
done <"$tmp/tables"
[ "$ncmd" -ge 10 ] && [ "$nopt" -ge 100 ] || fail "only $ncmd commands, $nopt options in the tables"
if command -v man >/dev/null 2>&1; then
	for p in "$doc"/man1/*.1; do
		w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null)
		[ -z "$w" ] || fail "$(basename "$p") renders with: $(echo "$w" | head -2)"
	done
fi

# 2. Completion: each option completes from its prefix; an option with
# names completes them (after a comma too: -l rwsem,p); the schemes are
# vmsim list's.
cat >"$tmp/complete.sh" <<'EOF'
source "$1"
words=("${@:2}")
COMP_WORDS=("${words[@]}")
COMP_CWORD=$(( ${#words[@]} - 1 ))
COMPREPLY=()
_vmsim
printf '%s\n' "${COMPREPLY[@]}"
EOF
complete() { bash "$tmp/complete.sh" "$doc/vmsim.bash" "$@"; }
while IFS=$'\t' read -r kind cmd sub long short arg values _; do
	[ "$kind" = option ] || continue
	words=(vmsim "$cmd")
	[ "$sub" = - ] || words+=("$sub")
	complete "${words[@]}" "$long" | grep -qxF -- "$long" ||
		fail "vmsim $cmd ${sub#-} $long: not completed"
	[ "$short" = - ] || complete "${words[@]}" "$short" | grep -qxF -- "$short" ||
		fail "vmsim $cmd ${sub#-} $short: not completed"
	if [ "$values" != - ]; then
		got=$(complete "${words[@]}" "$long" "" | sort | tr '\n' ' ')
		want=$(tr ' ' '\n' <<<"$values" | sort | tr '\n' ' ')
		[ "$got" = "$want" ] || fail "vmsim $cmd $long <TAB>: '$got', want '$want'"
	fi
done <"$tmp/tables"
schemes=$("$vmsim" list --tsv | awk -F'\t' '$1 == "scheme" || $1 == "host" {print $2}' | sort | tr '\n' ' ')
[ "$(complete vmsim run -l "" | sort | tr '\n' ' ')" = "$schemes" ] ||
	fail "vmsim run -l <TAB>: $(complete vmsim run -l "" | tr '\n' ' '), want $schemes"
complete vmsim run -l rwsem,p | grep -qx 'rwsem,pervma' || fail "-l rwsem,p<TAB>: $(complete vmsim run -l rwsem,p)"
# A list offers no name twice; calibrate's names are its own tables'
# (issue 64: it offered file names).
! complete vmsim run -l rwsem, | grep -qx 'rwsem,rwsem' || fail "-l rwsem,<TAB> offers rwsem again"
complete vmsim run -l rwsem, | grep -qx 'rwsem,pervma' || fail "-l rwsem,<TAB>: $(complete vmsim run -l rwsem,)"
complete vmsim calibrate -w "" | grep -qx mmap1 || fail "calibrate -w <TAB>: $(complete vmsim calibrate -w "" | head -3)"
[ "$(complete vmsim calibrate --fault-source "" | sort | tr '\n' ' ')" = "synthetic uffd " ] ||
	fail "calibrate --fault-source <TAB>: $(complete vmsim calibrate --fault-source "" | tr '\n' ' ')"
complete vmsim "" | grep -qx gate || fail "vmsim <TAB>: no gate"
complete vmsim bench "" | grep -qx scale || fail "vmsim bench <TAB>: no scale"
complete vmsim-compare --sig | grep -qx -- --significance || fail "vmsim-compare --sig<TAB>"

# Every command completes, and each completes its options (rerun, list
# and check had none).
for c in $(awk -F'\t' '$1 == "command" {print $2}' "$tmp/tables"); do
	complete vmsim "${c:0:3}" | grep -qx "$c" || fail "vmsim ${c:0:3}<TAB>: no $c"
done
complete vmsim rerun --p | grep -qx -- --print || fail "vmsim rerun --p<TAB>"
complete vmsim list --o | grep -qx -- --options || fail "vmsim list --o<TAB>"
complete vmsim help ga | grep -qx gate || fail "vmsim help ga<TAB>"

# 3. usage.md's option tables are the tables' own; one edited by hand
# is found, and named.
python3 "$src/scripts/gen-cli-docs.py" --check "$vmsim" "$src/docs/usage.md" 2>"$tmp/err" ||
	fail "usage.md: $(cat "$tmp/err")"
sed 's/^| `--rounds N` | base and candidate rounds/| `--rounds N` | rounds/' \
	"$src/docs/usage.md" >"$tmp/usage.md"
cmp -s "$src/docs/usage.md" "$tmp/usage.md" && fail "the stale-table check found no row to edit"
python3 "$src/scripts/gen-cli-docs.py" --check "$vmsim" "$tmp/usage.md" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q 'stale table(s): gate' "$tmp/err" ||
	fail "a stale usage.md table: exit $rc, $(cat "$tmp/err")"

# 4. What an install and the package hold.
cmake --install "$build" --prefix "$tmp/inst" >"$tmp/install.log" 2>&1 ||
	fail "cmake --install: $(tail -3 "$tmp/install.log")"
for f in bin/vmsim bin/vmsim-compare share/man/man1/vmsim-run.1 \
	 share/bash-completion/completions/vmsim share/bash-completion/completions/vmsim-compare \
	 share/doc/vmsim/LICENSE share/vmsim/traces/sort.trace \
	 share/vmsim/scripts/build-rev.sh; do
	[ -s "$tmp/inst/$f" ] || fail "cmake --install: no $f"
done
"$tmp/inst/bin/vmsim" --version >/dev/null || fail "the installed vmsim does not run"
(cd "$build" && cpack -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1) ||
	fail "cpack -G DEB: $(tail -3 "$tmp/cpack.log")"
deb=$(ls "$tmp"/pkg/vmsim_*.deb 2>/dev/null | head -1)
if [ -n "$deb" ]; then
	dpkg-deb -c "$deb" >"$tmp/contents"
	for f in ./usr/bin/vmsim ./usr/share/man/man1/vmsim-run.1 ./usr/share/bash-completion/completions/vmsim \
		 ./usr/share/vmsim/scripts/build-rev.sh; do
		grep -q " $f\$" "$tmp/contents" || fail "the package lacks $f"
	done
	dep=$(dpkg-deb -f "$deb" Depends)
	for lib in $(ldd "$vmsim" | awk '$3 ~ /^\// {print $3}'); do
		real=$(readlink -f "$lib")
		p=$(dpkg -S "$real" "${real#/usr}" "$lib" 2>/dev/null | head -1 | cut -d: -f1)
		[ -z "$p" ] || [[ ", $dep," == *", $p"[,\ ]* ]] ||
			fail "the package's Depends ($dep) lacks $p ($lib)"
	done
else
	fail "cpack made no vmsim_*.deb: $(tail -3 "$tmp/cpack.log")"
fi

[ $fails -eq 0 ] && echo "cli_docs: $ncmd commands, $nopt options: in their pages and completed; install and package hold them"
[ $fails -eq 0 ]
