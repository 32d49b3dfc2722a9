#!/usr/bin/env bash
# The test command: install what is needed, build, run the whole ctest
# suite, a test a CPU (the sanitizer suites alone: RUN_SERIAL). Exits
# non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest -j"$(nproc)" --output-on-failure
