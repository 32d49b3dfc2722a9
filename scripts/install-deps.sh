#!/usr/bin/env bash
# Install the Debian packages vmsim needs to build and test. Idempotent:
# quiet and quick when everything is already there.
set -euo pipefail

pkgs=(cmake ninja-build make gcc pkg-config liburing-dev libnuma-dev check liburcu-dev
      libjson-c-dev libgsl-dev zlib1g-dev gnuplot-nox clang libclang-rt-14-dev strace linux-perf
      chromium fonts-dejavu-core linux-source-6.12 man-db)
command -v python3 >/dev/null 2>&1 || pkgs+=(python3)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
