#!/usr/bin/env bash
# As an unprivileged user without userfaultfd access, vmsim says why and
# what to do, in one line, and exits non-zero at once; the synthetic fault
# source still works. Skips (77) when not root (cannot switch user) or
# when unprivileged userfaultfd is allowed here (nothing to refuse).
set -u
VMSIM=${1:?usage: unprivileged.sh path/to/vmsim}
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to run as nobody"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: no setpriv"; exit 77; }
[ "$(cat /proc/sys/vm/unprivileged_userfaultfd 2>/dev/null)" = 1 ] &&
	{ echo "SKIP: unprivileged userfaultfd is allowed here"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$VMSIM" "$dir/vmsim"
chmod 755 "$dir" "$dir/vmsim"
as_nobody() { (cd "$dir" && setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"); }
fails=0 passes=0

start=$(date +%s%N)
as_nobody ./vmsim run -q >"$dir/out" 2>"$dir/err"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
if [ $rc -ne 0 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] &&
   grep -q "userfaultfd is not available" "$dir/err" &&
   grep -q "unprivileged_userfaultfd=1" "$dir/err" &&
   grep -q -- "--fault-source synthetic" "$dir/err" && [ $ms -lt 1000 ]; then
	passes=$((passes + 1))
else
	echo "FAIL: refusal (exit $rc, $ms ms): $(cat "$dir/err")"
	fails=$((fails + 1))
fi
as_nobody ./vmsim check | grep -q "NOT available" && passes=$((passes + 1)) ||
	{ echo "FAIL: vmsim check does not say it"; fails=$((fails + 1)); }
if as_nobody ./vmsim run --fault-source synthetic -t 1 -i 1 -m 1M -q >"$dir/out" 2>"$dir/err" &&
   grep -q '^tasks .*Hmean faults/sec' "$dir/out"; then
	passes=$((passes + 1))
else
	echo "FAIL: synthetic run as nobody: $(cat "$dir/err")"
	fails=$((fails + 1))
fi
echo "unprivileged: $passes passed, $fails failed"
[ $fails -eq 0 ]
