#!/usr/bin/env bash
# Build vmsim with a sanitizer and run its test suite there; called by
# ctest (tests asan-suite and tsan-suite) so that `scripts/test.sh` and CI
# run the sanitizer builds too.
#   sanitizer-suite.sh address|thread BUILD_DIR
# address: the whole suite but interrupt.sh under ASan+UBSan. thread: the concurrent parts
# (lock validators, uffd, faults racing munmap, VMA-tree concurrency,
# readers racing the reuse of typesafe VMAs, the
# page allocator alone and behind the mm, the trace format and the
# shipped traces replayed, and property tests) under
# TSan, with a shorter property run (TSan is ~20x slower). The tests run
# side by side (one a CPU: 193 s -> 99 s under ASan, 127 s -> 67 s under
# TSan on the 2-CPU VM); none asserts a time.
set -euo pipefail
kind=${1:?address|thread}
dir=${2:?build dir}
src=$(cd "$(dirname "$0")/.." && pwd)
cmake -S "$src" -B "$dir" -DVMSIM_SANITIZE="$kind" -DVMSIM_WERROR=ON \
	-DVMSIM_SANITIZER_SUITES=OFF >/dev/null
cmake --build "$dir" -j"$(nproc)" >/dev/null
cd "$dir"
if [ "$kind" = thread ]; then
	VMSIM_PROPERTY_OPS=5000 ctest -j"$(nproc)" --output-on-failure \
		-R 'test_locks|test_rwsem|test_range_list|test_mprotect_range|test_uffd|test_vma_concurrency|test_vma_reuse|test_vma_property|test_fault_unmap|test_frames|test_slab|test_trace|^trace$'
else
	# interrupt.sh is timing-bound (signals at 1 s and 2.5 s into 18
	# runs) and runs in the plain suite; under ASan it would only repeat
	# those 40 s. add_plugin builds a tree of its own, without ASan;
	# docs runs the README's commands, a check of the documentation.
	ctest -j"$(nproc)" --output-on-failure -E '^(interrupt|add_plugin|docs|cli_docs)$'
fi
