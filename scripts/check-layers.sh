#!/usr/bin/env bash
# Fails when a library folder includes a header of a folder above it. The layers, lowest first
# (folders of one layer may not include each other):
#   core < graph < attention, datasets < models, io < tasks < apps, python
# Each folder's sources and its public headers (include/edgewise/<folder>/) are checked.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A layer=([core]=0 [graph]=1 [attention]=2 [datasets]=2 [models]=3 [io]=3 [tasks]=4 [apps]=5 [python]=5)
status=0
for folder in "${!layer[@]}"; do
  while IFS=: read -r file line included; do
    included=${included#*edgewise/}
    included=${included%%/*}
    [ "$included" = "$folder" ] && continue
    rank=${layer[$included]:-}
    if [ -z "$rank" ] || [ "$rank" -ge "${layer[$folder]}" ]; then
      echo "$file:$line: $folder/ includes edgewise/$included/, which is not below it" >&2
      status=1
    fi
  done < <(grep -rnoE '#include "edgewise/[a-z_]+/' "$folder" "include/edgewise/$folder" 2>/dev/null || true)
done
[ $status -eq 0 ] && echo "layers: every folder includes only folders below it"
exit $status
