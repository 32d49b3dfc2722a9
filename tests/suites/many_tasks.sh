#!/usr/bin/env bash
# 256 tasks in threads mode under every scheme, on both uffd splits: the
# counts are exact (one fault per page, nothing refused), and the result
# shows what the run was built of — with --uffd per-task, 256 uffds and
# 256 handlers; always a counter slot for every task and every handler,
# so no fixed limit sits below what --max-tasks allows.
set -u
VMSIM=${1:?usage: many_tasks.sh path/to/vmsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
all=$("$VMSIM" list --tsv | awk -F'\t' '$1 == "scheme" { print $2 }')
fails=0
# Four schemes a run: every target's 256 tasks, handlers and uffd stripes
# are set up at once, and seven targets' mappings reach the host's
# vm.max_map_count (65530 by default).
groups=$(echo "$all" | paste -d, - - - -)
for split in per-task shared; do
  n=0
  for schemes in $groups; do
	schemes=${schemes%%,}
	schemes=${schemes%%,}
	schemes=${schemes%%,}
	n=$((n + 1))
	out=$tmp/$split-$n
	# One pass, no warm-up, no ceiling: the counts are what is tested.
	if ! timeout 300 "$VMSIM" run -w pft -t 256 -m 4M -i 1 -l "$schemes" \
		--uffd $split --warmup 0 --min-sample 0 --ceiling off -q \
		-o "$out/" >"$out.log" 2>&1; then
		echo "FAIL: --uffd $split: $(tail -3 "$out.log")"
		fails=$((fails + 1))
		continue
	fi
	python3 - "$out" "$schemes" "$split" <<'PY' || fails=$((fails + 1))
import json, sys
base, schemes, split = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
for s in schemes:
    r = json.load(open(f"{base}/{s}.json"))
    assert r["complete"], (s, "incomplete")
    (p,) = r["results"]
    pages = (4 << 20) // 4096
    assert p["tasks"] == 256, (s, p["tasks"])
    assert p["touches"] == pages, (s, "touches", p["touches"])
    assert p["faults"]["anon_write"] == pages, (s, p["faults"])
    assert p["uffd"]["copy"] == pages, (s, p["uffd"])
    assert p["uffd"]["refused"] == 0 and p["uffd"]["errors"] == 0, (s, p["uffd"])
    want_fds = 256 if split == "per-task" else 1
    assert p["uffd"]["uffds"] == want_fds, (s, split, p["uffd"]["uffds"])
    assert p["uffd"]["handlers"] == 256, (s, split, p["uffd"]["handlers"])
    # a slot for each of 256 tasks and 256 handlers
    assert p["counter_slots"] >= 512, (s, p["counter_slots"])
    print(f"{split} {s}: {pages} faults, {p['uffd']['uffds']} uffds, "
          f"{p['uffd']['handlers']} handlers, {p['counter_slots']} counter slots")
PY
  done
done
[ $fails -eq 0 ]
