#!/usr/bin/env bash
# The test command: install what is needed, build, run the whole ctest
# suite, a test a CPU. Exits non-zero if anything fails.
#   scripts/test.sh           the developer's suite (every test; the
#                             sanitizers on the Check programs they can
#                             judge; 575-576 s on clean clones of the
#                             2-vCPU VM)
#   scripts/test.sh --deep    CI's deeper tests only (label deep; .ci/run
#                             runs them after the suite): the whole suite under
#                             ASan, the longer TSan set, the Release build,
#                             the fuzzers a minute each, the suites' full
#                             matrices (docs/tests.md, "Deep")
set -euo pipefail
cd "$(dirname "$0")/.."
deep=OFF
case ${1:-} in
"") ;;
--deep) deep=ON ;;
*) echo "test.sh: '$1': want no argument or --deep" >&2; exit 2 ;;
esac
scripts/install-deps.sh
scripts/build.sh -DVMSIM_TEST_DEEP=$deep
cd "${BUILD_DIR:-build}"
if [ $deep = ON ]; then
	ctest -j"$(nproc)" --output-on-failure -L deep
else
	ctest -j"$(nproc)" --output-on-failure
fi
