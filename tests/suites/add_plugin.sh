#!/usr/bin/env bash
# The guides are checked by doing them: in a copy of the tree, the two
# example schemes of docs/adding-a-scheme.md (one on the rwsem, one on its
# own mutex) and the example workload of docs/adding-a-workload.md are
# written exactly as the guides give them, with their one registry line
# each. The copy must differ from the tree in those three files and three
# lines only; it must build; `vmsim list` must show them; the lock
# validator must pass with the new schemes among the others; and the new
# workload must run under every scheme (the new ones too), both modes and
# both fault sources, with complete results.
#   add_plugin.sh SOURCE_DIR
set -u
src=$(cd "${1:?usage: add_plugin.sh SOURCE_DIR}" && pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
suite=add_plugin
# shellcheck source=tests/suites/lib.sh
. "$(dirname "$0")/lib.sh"
mkdir "$d/tree"
(cd "$src" && git ls-files --cached --others --exclude-standard -z |
	grep -zv '^build' | xargs -0 tar -cf -) | tar -C "$d/tree" -xf -
# The guides' code, to the letter: the block that names the file, and the
# registry line.
python3 - "$src" "$d/tree" <<'PY' || exit 1
import re, sys
src, tree = sys.argv[1], sys.argv[2]
def blocks(md):
    return re.findall(r"```(\w*)\n(.*?)```", open(md).read(), re.S)
for md, path, reg, line_re in (
        ("docs/adding-a-scheme.md", "locks/exclusive.c", "locks/schemes.def", r"^LOCK_SCHEME\("),
        ("docs/adding-a-scheme.md", "locks/biglock.c", "locks/schemes.def", r"^LOCK_SCHEME\("),
        ("docs/adding-a-workload.md", "workloads/pft_read.c", "workloads/workloads.def", r"^WORKLOAD\(")):
    bs = blocks(f"{src}/{md}")
    name = path.split("/")[1][:-2]
    code = [b for lang, b in bs if lang == "c" and f" * {name} — " in b]
    line = [b for lang, b in bs if not lang and re.match(line_re, b) and
            re.search(rf"\({name}[,)]", b)]
    if len(code) != 1 or len(line) != 1:
        sys.exit(f"{md}: want one C example naming {name} and one registry line")
    open(f"{tree}/{path}", "w").write(code[0])
    open(f"{tree}/{reg}", "a").write(line[0])
PY
changed=$(cd "$d" && diff -rq "$src" tree 2>/dev/null | grep -v "^Only in $src" |
	  sed "s|$d/||; s|$src|src|" | sort)
want=$(printf '%s\n' "Files src/locks/schemes.def and tree/locks/schemes.def differ" \
	"Files src/workloads/workloads.def and tree/workloads/workloads.def differ" \
	"Only in tree/locks: biglock.c" "Only in tree/locks: exclusive.c" \
	"Only in tree/workloads: pft_read.c" | sort)
[ "$changed" = "$want" ] || fail "the copy differs in more than the guides say: $changed"
for reg in locks/schemes.def:2 workloads/workloads.def:1; do
	n=$(diff "$src/${reg%:*}" "$d/tree/${reg%:*}" | grep -c '^>')
	[ "$n" -eq "${reg#*:}" ] || fail "${reg%:*}: $n lines added, want ${reg#*:}"
done
cmake -S "$d/tree" -B "$d/build" -DVMSIM_WERROR=ON -DVMSIM_SANITIZER_SUITES=OFF -DCMAKE_BUILD_TYPE=Debug \
	>/dev/null 2>"$d/err" || { cat "$d/err"; exit 1; }
cmake --build "$d/build" -j"$(nproc)" --target vmsim test_locks >"$d/log" 2>&1 ||
	{ grep -E "error|Error" "$d/log" | head -20; exit 1; }
vmsim=$d/build/vmsim
"$vmsim" list --tsv >"$d/list"
for s in exclusive biglock; do
	grep -qP "^scheme\t$s\t" "$d/list" || fail "vmsim list has no scheme $s"
done
grep -qP '^workload\tpft_read\tfaults/sec\t' "$d/list" || fail "vmsim list has no workload pft_read"
"$d/build/tests/test_locks" >"$d/locks.out" 2>&1 ||
	fail "the lock validator with exclusive and biglock: $(tail -5 "$d/locks.out")"
schemes=$(awk -F'\t' '$1 == "scheme" && $3 == "excludes" { print $2 }' "$d/list" | paste -sd,)
args=$(awk -F'\t' '$1 == "workload" && $2 == "pft_read" { print $7 }' "$d/list")
for mode in threads processes; do
	for srcname in uffd synthetic; do
		# shellcheck disable=SC2086
		# --arena 4G: every excluding scheme at once, each registering
		# its arena in 2M uffd stripes, would pass the host's
		# vm.max_map_count at the default 16G. No harness ceiling:
		# the runs' subject is the new workload, not a scaling figure.
		if ! timeout 120 "$vmsim" run -w pft_read -l "$schemes" -t 2 --arena 4G \
			--mode $mode --fault-source $srcname $args --min-sample 0 --ceiling off -q \
			-o "$d/r.json" >"$d/run.log" 2>&1; then
			fail "pft_read $mode $srcname: $(tail -3 "$d/run.log")"
			continue
		fi
		python3 - "$d" "$schemes" <<'PY' || fail "pft_read $mode $srcname: results"
import json, sys
d, schemes = sys.argv[1], sys.argv[2].split(",")
for s in schemes:
    r = json.load(open(f"{d}/r-{s}.json"))
    assert r["complete"] and r["results"][0]["samples"]["faults/sec"][0] > 0, s
    assert r["results"][0]["faults"]["anon_read"] > 0, s
PY
		rm -f "$d"/r-*.json
	done
done
[ $fails -eq 0 ] && echo "add_plugin: the guides' schemes and workload: three files, three lines; built, validated and run"
[ $fails -eq 0 ]
