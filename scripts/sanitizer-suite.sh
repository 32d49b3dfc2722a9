#!/usr/bin/env bash
# Build vmsim with a sanitizer and run tests there; called by ctest so that
# `scripts/test.sh` and CI run the sanitizer builds too.
#   sanitizer-suite.sh address|thread BUILD_DIR build|unit|full
# build: configure BUILD_DIR and build only the Check programs the unit
#   step runs (and the libraries they link: no command line, no analysis).
# unit: run them, side by side, at the developer suite's sizes:
#   address — every Check program of the layers that manage memory
#   (base, locks, uffd, sim, workloads) under ASan+UBSan+LSan, a
#   3,000-step property run per scheme, and two fuzz targets' seed
#   corpora replayed (the readers of results and of traces; the command
#   line's needs the whole tree built, which the full step does);
#   thread — the programs with threads in them (lock validators, uffd,
#   tree concurrency, readers racing the reuse of typesafe VMAs, faults
#   racing munmap, the page allocator, the slabs, the trace format, the
#   property run's lock-free reader) under TSan, 2,000 steps;
#   both on the maple tree (NAME_vmsim, on vmsim's own tree, in the full
#   step);
#   the stress loops a quarter as long under ASan, an eighth under TSan
#   (VMSIM_TEST_DIVISOR; TSan runs them 5-15 times slower).
# full: CI's (scripts/test.sh --deep): everything built; address — every
#   suite but the timing-bound interrupt.sh, add_plugin (a build of its
#   own), docs and cli_docs; thread — the above, the frames behind the mm
#   and the shipped traces replayed. None asserts a time.
set -euo pipefail
kind=${1:?address|thread}
dir=${2:?build dir}
step=${3:-full}
src=$(cd "$(dirname "$0")/.." && pwd)

# The unit sets (ctest names; NAME_vmsim is NAME on vmsim's own tree).
asan_unit="test_parse test_locks test_rwsem test_range_list test_rcu_lazy
	test_uffd test_hist test_vma_tree test_mprotect_range test_uffd_source
	test_vma_property test_vma_concurrency test_vma_reuse test_fault_unmap test_maps
	test_protection test_kernel_fault test_folio test_frames test_frames_mm
	test_slab test_slab_rseq test_trace test_runner test_costs test_cost_profile
	fuzz_results_replay fuzz_trace_replay"
tsan_unit="test_locks test_rwsem test_range_list test_rcu_lazy test_uffd
	test_mprotect_range test_vma_concurrency test_vma_reuse test_maps
	test_vma_property test_fault_unmap test_frames test_slab test_slab_rseq
	test_trace"
if [ "$kind" = address ]; then set=$asan_unit; else set=$tsan_unit; fi
# shellcheck disable=SC2086
names=$(echo $set | tr ' ' '|')

configure() {
	cmake -S "$src" -B "$dir" -DVMSIM_SANITIZE="$kind" -DVMSIM_WERROR=ON \
		-DVMSIM_SANITIZER_SUITES=OFF -DVMSIM_TEST_DEEP=OFF "$@" >/dev/null
}

case $step in
build)
	# -O1 and line tables: what the sanitizers' reports need, built in
	# 72% of -O2 -g's CPU time (ASan, the libraries, measured). With
	# clang where it is installed: its sanitizer builds took 34 s here
	# where gcc's took 42 (ASan, alone), and its UBSan checks pointer
	# arithmetic, which gcc's does not (it found an offset taken from
	# NULL). The full step, CI's, builds with the default compiler: the
	# two compilers' sanitizers see different things.
	if command -v clang >/dev/null; then export CC=clang; fi
	configure -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
	# shellcheck disable=SC2086
	cmake --build "$dir" -j"$(nproc)" --target $set >/dev/null
	;;
unit)
	cd "$dir"
	ops=3000 div=4
	[ "$kind" = thread ] && ops=2000 div=8
	VMSIM_TEST_DIVISOR=$div VMSIM_PROPERTY_OPS=$ops ctest -j"$(nproc)" --output-on-failure \
		-R "^($names)\$"
	;;
full)
	# with the suites' full matrices (smoke-full for smoke)
	configure -DVMSIM_TEST_DEEP=ON
	cmake --build "$dir" -j"$(nproc)" >/dev/null
	cd "$dir"
	if [ "$kind" = thread ]; then
		VMSIM_PROPERTY_OPS=5000 ctest -j"$(nproc)" --output-on-failure \
			-R "^($names|test_frames_mm)(_vmsim)?\$|^trace\$"
	else
		# interrupt.sh is timing-bound (signals at 1 s and 2.5 s
		# into 18 runs) and runs in the plain suite; under ASan it
		# would only repeat those 40 s. add_plugin builds a tree of
		# its own, without ASan; docs runs the README's commands, a
		# check of the documentation.
		ctest -j"$(nproc)" --output-on-failure \
			-E '^(interrupt|interrupt-full|add_plugin|docs|cli_docs|smoke)$'
	fi
	;;
*)
	echo "sanitizer-suite.sh: step '$step': want build, unit or full" >&2
	exit 2
	;;
esac
