#!/usr/bin/env bash
# Builds the API reference (HTML in build/docs/html) from the public headers and docs/*.md, and fails
# on any Doxygen warning: an undocumented public declaration, a broken reference, bad markup.
# Installs Doxygen with apt-get when it is missing (run as root then, as scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v doxygen >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends doxygen || {
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends doxygen
  }
fi

mkdir -p build/docs
doxygen docs/Doxyfile
echo "API reference: build/docs/html/index.html"
