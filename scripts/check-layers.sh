#!/usr/bin/env bash
# Fails when a library folder includes a header of a folder above it, or of a folder it must stay
# apart from. The layers, lowest first (folders of one layer may not include each other):
#   core < graph < attention, datasets, splits < models, io < chem, distributed, tasks/common
#        < distributed/molecules < tasks/node, tasks/link, tasks/molecule < tasks < apps, python
# and, across layers: chem/ includes nothing of models/ (reading molecules and training networks meet
# only in tasks/), and tasks/node/ and tasks/link/ nothing of chem/ or distributed/molecules/ (node
# classification and link prediction build without RDKit). Outside distributed/, no source includes MPI's header.
# Each folder's sources and its public headers (include/edgewise/<folder>/) are checked; a file
# belongs to the deepest folder listed here that holds it (tasks/node/x.cpp to tasks/node).
# Outside chem/, no source includes an RDKit header.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A layer=([core]=0 [graph]=1 [attention]=2 [datasets]=2 [splits]=2 [models]=3 [io]=3 [chem]=4 [distributed]=4
  [tasks/common]=4 [distributed/molecules]=5 [tasks/node]=6 [tasks/link]=6 [tasks/molecule]=6 [tasks]=7 [apps]=8 [python]=8)
declare -A apart=([chem]="models" [tasks/node]="chem distributed/molecules tasks/molecule"
  [tasks/link]="chem distributed/molecules tasks/molecule")

# The folder of `layer` that holds a path (relative to the root, or to include/edgewise/).
owner() {
  local path=${1#include/edgewise/} folder=""
  path=${path%/*}
  while [ -n "$path" ]; do
    if [ -n "${layer[$path]:-}" ]; then
      folder=$path
      break
    fi
    [[ $path == */* ]] && path=${path%/*} || path=""
  done
  echo "$folder"
}

roots=()
for folder in "${!layer[@]}"; do
  roots+=("$folder")
  [ -d "include/edgewise/$folder" ] && roots+=("include/edgewise/$folder")
done
status=0
while IFS=: read -r file line included; do
  folder=$(owner "$file")
  included=${included#*edgewise/}
  included=$(owner "${included%/}/x")
  [ "$included" = "$folder" ] && continue
  rank=${layer[$included]:-}
  if [ -z "$rank" ] || [ "$rank" -ge "${layer[$folder]}" ]; then
    echo "$file:$line: $folder/ includes edgewise/$included/, which is not below it" >&2
    status=1
  elif [[ " ${apart[$folder]:-} " == *" $included "* ]]; then
    echo "$file:$line: $folder/ includes edgewise/$included/, which it stays apart from" >&2
    status=1
  fi
done < <(grep -rnoE '#include "edgewise/[a-z_/]+/' "${roots[@]}" 2>/dev/null | sort -u || true)
while IFS=: read -r file line _; do
  [ "$(owner "$file")" = chem ] && continue
  echo "$file:$line: includes RDKit outside chem/" >&2
  status=1
done < <(grep -rnE '#include <(GraphMol|RDGeneral|RDBoost|DataStructs|Geometry)/' "${roots[@]}" 2>/dev/null | sort -u || true)
while IFS=: read -r file line _; do
  [[ $(owner "$file") == distributed* ]] && continue
  echo "$file:$line: includes MPI outside distributed/" >&2
  status=1
done < <(grep -rnE '#include <mpi\.h>' "${roots[@]}" 2>/dev/null | sort -u || true)
[ $status -eq 0 ] && echo "layers: every folder includes only folders below it, only chem/ includes RDKit and only distributed/ MPI"
exit $status
