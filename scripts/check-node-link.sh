#!/usr/bin/env bash
# Checks that node classification builds and runs without RDKit: tests/support/node_only.cpp, a
# program linked against edgewise::tasks_node alone, must have neither RDKit nor edgewise's chem
# library on its link line (CMake's link command in the build folder), must load no RDKit library
# when it runs (ldd), and must train and score a model. Run by scripts/test.sh after the build.
#
#   scripts/check-node-link.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build}
program=$build/tests/node_only
link=$build/tests/CMakeFiles/node_only.dir/link.txt
if [[ ! -x $program || ! -f $link ]]; then
  echo "check-node-link: $program is not built (configure with -DEDGEWISE_BUILD_TESTS=ON and build)" >&2
  exit 1
fi
status=0
if grep -qiE 'rdkit|edgewise_chem|edgewise_distributed_molecules|edgewise_tasks_molecule' "$link"; then
  echo "check-node-link: the link line of $program names chemistry:" >&2
  grep -oiE '[^ ]*(rdkit|edgewise_chem|edgewise_distributed_molecules|edgewise_tasks_molecule)[^ ]*' "$link" | sort -u >&2
  status=1
fi
if ldd "$program" | grep -qi rdkit; then
  echo "check-node-link: $program loads RDKit:" >&2
  ldd "$program" | grep -i rdkit >&2
  status=1
fi
[ $status -eq 0 ] || exit $status
"$program"
echo "check-node-link: $program links and loads no RDKit ($(ldd "$program" | wc -l) libraries loaded)"
