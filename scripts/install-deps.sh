#!/usr/bin/env bash
# Installs every build, test and runtime dependency of edgewise on Debian bookworm (run as root).
# scripts/install-deps.sh --clang also installs the toolchain of the sanitizer and fuzzing builds
# (.ci/run, tests/fuzz/run): clang with its sanitizer, libFuzzer and OpenMP runtimes, GNU time, and
# pytest-xdist, which runs the sanitizer build's Python tests one per core.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(
  cmake g++ make pkg-config
  libeigen3-dev libboost-graph-dev
  librdkit-dev rdkit-data
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libssl-dev libxxhash-dev libjemalloc-dev
  # Runs across processes under mpirun, on graphs cut into parts by METIS.
  libopenmpi-dev openmpi-bin libmetis-dev
  # The Python module and its tests, for Debian's /usr/bin/python3.
  python3-dev pybind11-dev python3-numpy python3-pytest python3-scipy python3-sklearn python3-pandas
  python3-networkx
)
if [ "${1:-}" = "--clang" ]; then
  packages+=(clang libclang-rt-14-dev libomp-14-dev time python3-pytest-xdist)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
