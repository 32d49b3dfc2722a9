#!/usr/bin/env bash
# The test command: install what is needed, build, run the whole ctest
# suite, a test a CPU (the sanitizer suites alone: RUN_SERIAL). Exits
# non-zero if anything fails, a warning of the Release build included.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
# The Release type too, warnings as errors (its optimiser sees more:
# -Wformat-truncation found a row key that could be cut); built, not run.
BUILD_DIR=${BUILD_DIR:-build}-release scripts/build.sh \
	-DCMAKE_BUILD_TYPE=Release -DVMSIM_SANITIZER_SUITES=OFF
cd "${BUILD_DIR:-build}"
ctest -j"$(nproc)" --output-on-failure
