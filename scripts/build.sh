#!/usr/bin/env bash
# Configure and build vmsim into build/ (or $BUILD_DIR). Extra arguments go
# to cmake, e.g. scripts/build.sh -DVMSIM_SANITIZE=address
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DVMSIM_WERROR=ON "$@" >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
