#!/usr/bin/env bash
# vmsim as it was at a commit, for `vmsim gate --base`: builds it once
# into build-rev/SHA/vmsim (from a temporary git worktree, removed after)
# and prints that path; a second call for the same commit only prints it.
#   OLD=$(scripts/build-rev.sh main)
#   vmsim gate --base "$OLD" --candidate build/vmsim -- -w pft -t 1,2 -i 5
# Exit 2 (one line) if the commit is not in this clone. Run from the
# package (/usr/share/vmsim/scripts/build-rev.sh), it works on the vmsim
# clone the current directory is in.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -e "$here/.git" ] && [ -f "$here/cli/main.c" ]; then
	cd "$here"
elif top=$(git rev-parse --show-toplevel 2>/dev/null) && [ -f "$top/cli/main.c" ]; then
	cd "$top"
else
	echo "build-rev: $PWD is not in a clone of vmsim (cd into one first)" >&2
	exit 2
fi
rev=${1:?usage: scripts/build-rev.sh COMMIT   (main, HEAD~1, a sha, a tag)}
if ! sha=$(git rev-parse --verify --quiet "$rev^{commit}"); then
	echo "build-rev: no commit '$rev' in this clone (git fetch it first?)" >&2
	exit 2
fi
out=$PWD/build-rev/${sha:0:12}
if [ -x "$out/vmsim" ]; then
	echo "$out/vmsim"
	exit 0
fi
work=$(mktemp -d)
trap 'git worktree remove --force "$work/tree" >/dev/null 2>&1 || :
      rm -rf "$work"' EXIT
git worktree add --detach "$work/tree" "$sha" >/dev/null 2>&1 ||
	{ echo "build-rev: cannot check out $rev ($sha) into $work" >&2; exit 1; }
# What that commit needs, by its own list (where it has one).
if [ -x "$work/tree/scripts/install-deps.sh" ]; then
	"$work/tree/scripts/install-deps.sh" >&2
fi
# No -Werror: an older tree meets a newer compiler's warnings.
cmake -S "$work/tree" -B "$work/build" -DVMSIM_SANITIZER_SUITES=OFF >/dev/null
cmake --build "$work/build" -j"$(nproc)" --target vmsim >/dev/null
mkdir -p "$out"
cp "$work/build/vmsim" "$out/vmsim.part"
mv "$out/vmsim.part" "$out/vmsim"
echo "$out/vmsim"
