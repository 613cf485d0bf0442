#!/usr/bin/env bash
# Downloads the datasets listed in datasets/registry.json, verifies every file's SHA-256 and makes the
# derived files (edges.txt, labels.txt, ...) that have a recipe.
#
#   datasets/fetch.sh NAME|all [--dest DIR] [--force] [--mirror URL]
#
# Files go to DIR/NAME/. DIR defaults to $EDGEWISE_DATA, else ../shared/datasets beside the checkout:
# the places edgewise reads data from. A file already there with the expected checksum is kept; one
# with another checksum is left alone and reported unless --force is given. --mirror URL downloads
# URL/NAME/FILE instead of each file's upstream address (a copy laid out like DIR; file:// works
# with curl). Needs jq, sha256sum, and curl or wget.
set -euo pipefail
export LC_ALL=C  # byte order for sort, so derived files match their checksums

script_dir=$(cd "$(dirname "$0")" && pwd)
registry=$script_dir/registry.json

die() {
  echo "fetch.sh: $*" >&2
  exit 1
}

usage() {
  echo "usage: datasets/fetch.sh NAME|all [--dest DIR] [--force] [--mirror URL]" >&2
  exit 2
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# The value at a jq path of one registry entry (compact JSON); null and false read as empty.
field() { jq -r "$2 // empty" <<<"$1"; }

# The temporary file being filled, removed if the script stops before it is verified.
pending=""
trap 'rm -f -- "$pending" "$pending.fix"' EXIT

download() {
  local url=$1 out=$2
  if command -v curl >/dev/null; then
    curl --fail --location --silent --show-error --retry 3 --output "$out" "$url"
  elif command -v wget >/dev/null; then
    wget --quiet --output-document="$out" "$url"
  else
    die "neither curl nor wget is installed (apt-get install curl)"
  fi
}

# Edits a downloaded file the way the registry's copy was edited from upstream.
apply_fix() {
  local file=$1 fix=$2 op
  op=$(field "$fix" .op)
  case $op in
    strip_cr) tr -d '\r' <"$file" >"$file.fix" && mv "$file.fix" "$file" ;;
    final_newline) if [ -n "$(tail -c 1 "$file")" ]; then echo >>"$file"; fi ;;
    rename_header)
      # Renames one comma-separated header field, keeping a CRLF line ending.
      awk -F, -v OFS=, -v from="$(field "$fix" .from)" -v to="$(field "$fix" .to)" '
        NR == 1 { cr = sub(/\r$/, ""); for (i = 1; i <= NF; i++) if ($i == from) $i = to; if (cr) $0 = $0 "\r" }
        { print }' "$file" >"$file.fix" && mv "$file.fix" "$file"
      ;;
    *) die "unknown fix '$op' in $registry" ;;
  esac
}

# Undirected edges "u v" with u < v, sorted, without self-loops and duplicates.
undirected_edges() {
  local entry=$1 source=$2 separator skip
  separator=$(field "$entry" .separator)
  skip=$([ "$(field "$entry" .header)" = true ] && echo 1 || echo 0)
  awk -F"$separator" -v skip="$skip" -v a="$(field "$entry" '.columns[0]')" -v b="$(field "$entry" '.columns[1]')" \
    -v offset="$(field "$entry" .id_offset)" '
    NR > skip {
      u = $(a + 1) + offset; v = $(b + 1) + offset
      if (u == v) next
      if (u > v) { t = u; u = v; v = t }
      print u " " v
    }' "$source" | sort -n -k1,1 -k2,2 -u
}

# "node label" sorted by node; with true_value the label is 1 where the column equals it, else 0.
node_labels() {
  local entry=$1 source=$2 separator skip
  separator=$(field "$entry" .separator)
  skip=$([ "$(field "$entry" .header)" = true ] && echo 1 || echo 0)
  awk -F"$separator" -v skip="$skip" -v node="$(field "$entry" .node_column)" \
    -v label="$(field "$entry" .label_column)" -v true_value="$(field "$entry" .true_value)" '
    NR > skip {
      value = $(label + 1)
      if (true_value != "") value = (value == true_value) ? 1 : 0
      print $(node + 1) + 0, value
    }' "$source" | sort -n -k1,1
}

# "node<TAB>indices" from a JSON object {node: [feature indices]}: indices sorted and de-duplicated.
feature_lists() {
  jq -r 'to_entries[] | "\(.key)\t\(.value | unique | map(tostring) | join(" "))"' "$2" | sort -n -k1,1
}

# Whether dest already holds the expected file; fails if it holds a different one and --force is off.
already_present() {
  local target=$1 expected=$2
  [ -e "$target" ] || return 1
  [ "$(sha256_of "$target")" = "$expected" ] && return 0
  [ "$force" = true ] && return 1
  die "refusing to overwrite $target: its sha256 $(sha256_of "$target") differs from the registry's $expected (use --force)"
}

# Moves the pending file into place if its checksum is the expected one.
install_verified() {
  local target=$1 expected=$2 origin=$3 actual
  actual=$(sha256_of "$pending")
  [ "$actual" = "$expected" ] || die "checksum mismatch for $target from $origin: expected sha256 $expected, got $actual"
  chmod "$(printf '%o' $((0666 & ~0$(umask))))" "$pending"  # mktemp creates files readable by the owner only
  mv -f "$pending" "$target"
  pending=""
  echo "  $target: ok"
}

fetch_file() {
  local dataset=$1 entry=$2 name url expected target
  name=$(field "$entry" .name)
  expected=$(field "$entry" .sha256)
  target=$dest/$dataset/$name
  if already_present "$target" "$expected"; then
    echo "  $target: already present"
    return
  fi
  url=$(field "$entry" .url)
  [ -n "$mirror" ] && url=$mirror/$dataset/$name
  pending=$(mktemp "$dest/$dataset/.$name.XXXXXX")
  download "$url" "$pending" || die "download of $url failed"
  while IFS= read -r fix; do
    apply_fix "$pending" "$fix"
  done < <(jq -c '.fixes // [] | .[]' <<<"$entry")
  install_verified "$target" "$expected" "$url"
}

derive_file() {
  local dataset=$1 entry=$2 name recipe expected target
  name=$(field "$entry" .name)
  recipe=$(field "$entry" .recipe)
  target=$dest/$dataset/$name
  if [ -z "$recipe" ]; then
    echo "  $target: not made by fetch.sh: $(field "$entry" .how)"
    return
  fi
  expected=$(field "$entry" .sha256)
  if already_present "$target" "$expected"; then
    echo "  $target: already present"
    return
  fi
  case $recipe in
    undirected_edges | node_labels | feature_lists) ;;
    *) die "unknown recipe '$recipe' in $registry" ;;
  esac
  pending=$(mktemp "$dest/$dataset/.$name.XXXXXX")
  "$recipe" "$entry" "$dest/$dataset/$(field "$entry" .from)" >"$pending"
  install_verified "$target" "$expected" "$recipe of $(field "$entry" .from)"
}

fetch_dataset() {
  local dataset=$1 entry
  echo "$dataset:"
  mkdir -p "$dest/$dataset"
  while IFS= read -r entry; do
    fetch_file "$dataset" "$entry"
  done < <(jq -c --arg d "$dataset" '.datasets[$d].files[]' "$registry")
  while IFS= read -r entry; do
    derive_file "$dataset" "$entry"
  done < <(jq -c --arg d "$dataset" '.datasets[$d].derived[]' "$registry")
}

name=""
dest=${EDGEWISE_DATA:-$script_dir/../../shared/datasets}
force=false
mirror=""
while [ $# -gt 0 ]; do
  case $1 in
    --dest) [ $# -ge 2 ] || usage; dest=$2; shift 2 ;;
    --force) force=true; shift ;;
    --mirror) [ $# -ge 2 ] || usage; mirror=${2%/}; shift 2 ;;
    -h | --help) usage ;;
    -*) echo "fetch.sh: unknown option $1" >&2; usage ;;
    *) [ -z "$name" ] || usage; name=$1; shift ;;
  esac
done
[ -n "$name" ] || usage
command -v jq >/dev/null || die "jq is required to read $registry (apt-get install jq)"

mapfile -t known < <(jq -r '.datasets | keys_unsorted[]' "$registry")
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

if [ "$name" != all ]; then
  jq -e --arg d "$name" '.datasets | has($d)' "$registry" >/dev/null || die "unknown dataset '$name'; known: ${known[*]} (or all)"
  fetch_dataset "$name"
  exit 0
fi

# Each dataset in its own process, so that one failure does not stop the others.
options=(--dest "$dest")
[ "$force" = true ] && options+=(--force)
[ -n "$mirror" ] && options+=(--mirror "$mirror")
failed=()
for dataset in "${known[@]}"; do
  "$BASH" "$0" "$dataset" "${options[@]}" || failed+=("$dataset")
done
[ ${#failed[@]} -eq 0 ] || die "failed: ${failed[*]}"
