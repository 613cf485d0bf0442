#!/usr/bin/env bash
# Trains a graph-level regression model that predicts the topological polar surface area (TPSA) of
# molecules from their SMILES, on the 4999 molecules of RDKit's NCI TPSA table, and reports its error.
# Run as root on a fresh Debian bookworm machine (installs the dependencies and builds into build/).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "${EDGEWISE_BUILD_JOBS:-$(nproc)}" --target edgewise_cli

cli=build/apps/edgewise
# "edgewise <unknown> --help" prints the general help and succeeds, so look for train among the
# subcommands that --help lists (grep without -q reads all of it: no SIGPIPE under pipefail).
if ! { [ -x "$cli" ] && "$cli" --help | grep -E '^ +train( |$)' >/dev/null; }; then
  echo "demo.sh: the molecule demo is not available yet: '$cli train' does not exist in this version" >&2
  exit 1
fi

# The table has no header; its first line is a "#" comment. Column 0: SMILES, column 1: TPSA.
data=/usr/share/RDKit/Data/NCI/first_5k.tpsa.csv
"$cli" train --task graph --data "$data" --no-header --comment "#" --smiles-column 0 --target-column 1
