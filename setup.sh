#!/usr/bin/env bash
# Installs what futexsim needs (Debian 12 packages) if it is missing, then
# configures and builds into ./build. Safe to run again: it only does what
# is not done. Set CI=true (as CI does) to build with -Werror.
set -euo pipefail
cd "$(dirname "$0")"

packages=(
  build-essential cmake pkg-config
  libboost-context-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  catch2 librapidcheck-dev
  liburcu-dev libbenchmark-dev
  parallel python3-matplotlib
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

preset=default
if [ "${CI:-}" = "true" ]; then preset=ci; fi
if [ ! -f build/CMakeCache.txt ]; then
  cmake --preset "$preset" >/dev/null
fi
cmake --build build -j "$(nproc)"
