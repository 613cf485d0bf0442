#!/usr/bin/env bash
# Installs edgewise from a build folder (default build/) into a temporary prefix, then configures,
# builds and runs every project in examples/ against that installation, each in its own temporary
# build folder (checking that karate_club, which links edgewise::tasks_node alone, loads no RDKit),
# builds one of them once more with pkg-config instead of CMake, and runs the Python
# examples (examples/python) with the package installed there. Stops at the
# first failure with a non-zero status. Nothing is left behind.
#
#   scripts/check-examples.sh [BUILD_DIR]
#
# The build folder is brought up to date first (the libraries, the edgewise tool and the Python module);
# EDGEWISE_BUILD_JOBS sets the number of compile jobs (default: the number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build}
if [[ ! -f $build/CMakeCache.txt ]]; then
  echo "check-examples: '$build' is not a configured build folder (scripts/test.sh makes build/)" >&2
  exit 1
fi
jobs=${EDGEWISE_BUILD_JOBS:-$(nproc)}
work=$(mktemp -d "${TMPDIR:-/tmp}/edgewise-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT
started=$SECONDS

# Runs a command with its output in a log file, printed only when the command fails.
quietly() {
  local log=$1
  shift
  if ! "$@" > "$log" 2>&1; then
    cat "$log" >&2
    echo "check-examples: failed: $*" >&2
    return 1
  fi
}

prefix=$work/prefix
targets=(edgewise_cli)
grep -q '^EDGEWISE_PYTHON:BOOL=ON' "$build/CMakeCache.txt" && targets+=(edgewise_python)
quietly "$work/build.log" cmake --build "$build" -j "$jobs" --target "${targets[@]}"
quietly "$work/install.log" cmake --install "$build" --prefix "$prefix"
echo "installed edgewise $("$prefix/bin/edgewise" --version) into a temporary prefix"

for example in examples/*/; do
  [[ -f $example/CMakeLists.txt ]] || continue  # examples/python is run below
  name=$(basename "$example")
  echo "== $name (CMake, find_package)"
  quietly "$work/$name.configure.log" cmake -S "$example" -B "$work/$name" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix"
  quietly "$work/$name.build.log" cmake --build "$work/$name" -j "$jobs"
  (cd "$work" && "$work/$name/$name")
  # karate_club links edgewise::tasks_node alone: node classification without RDKit.
  if [[ $name == karate_club ]] && ldd "$work/$name/$name" | grep -qi rdkit; then
    echo "check-examples: $name loads RDKit, which node classification should not link:" >&2
    ldd "$work/$name/$name" | grep -i rdkit >&2
    exit 1
  fi
done

echo "== custom_model (pkg-config)"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
# shellcheck disable=SC2046  # pkg-config's flags are meant to be split into words
quietly "$work/pkg-config.log" c++ -std=c++20 -O2 examples/custom_model/main.cpp -o "$work/custom_model_pc" \
  $(pkg-config --cflags --libs edgewise)
"$work/custom_model_pc" > "$work/custom_model_pc.out"
tail -n 1 "$work/custom_model_pc.out"

# The Python examples, against the package as installed into the prefix, with Debian's interpreter.
packages=$(find "$prefix" -path '*/python3*/*-packages' -type d -prune | head -n 1)
if [[ -n $packages ]]; then
  for script in examples/python/*.py; do
    echo "== python/$(basename "$script")"
    (cd "$work" && PYTHONPATH=$packages /usr/bin/python3 "$OLDPWD/$script")
  done
else
  echo "== python: skipped, the build has no Python module (EDGEWISE_PYTHON is off)"
fi

echo "check-examples: every example built and ran in $((SECONDS - started)) s"
