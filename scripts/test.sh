#!/usr/bin/env bash
# Installs the dependencies, checks that no library folder includes one above it, builds edgewise in
# Release with its tests and the Python module into build/, runs the C++ tests, checks that a
# node-classification program links no RDKit, then runs the Python
# tests with Debian's /usr/bin/python3 (python3 on PATH may be another interpreter), and installs the
# module where /usr/bin/python3 imports it.
# Run as root on a fresh Debian bookworm machine; later runs rebuild incrementally.
# EDGEWISE_BUILD_JOBS sets the number of compile jobs and CTEST_PARALLEL_LEVEL the number of tests
# run at once (both default to the number of cores: the tests are short and mostly run on one core,
# so two at a time took 57 s on 2 cores where one at a time took 89 s).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/check-layers.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DEDGEWISE_BUILD_TESTS=ON
cmake --build build -j "${EDGEWISE_BUILD_JOBS:-$(nproc)}"
ctest --test-dir build --output-on-failure -j "${CTEST_PARALLEL_LEVEL:-$(nproc)}"
# Node classification builds and runs without RDKit on its link line or in its process.
scripts/check-node-link.sh build
PYTHONPATH=build/python PYTHONDONTWRITEBYTECODE=1 EDGEWISE_CLI=build/apps/edgewise \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider python/tests
cmake --install build --component python
/usr/bin/python3 -c "import edgewise; print('edgewise', edgewise.__version__, 'installed for', __import__('sys').executable)"
