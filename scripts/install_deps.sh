#!/usr/bin/env bash
# Installs the Debian 12 packages the build needs, only when some are missing.
# Everything the build uses comes from these packages; Bazel downloads nothing.
set -euo pipefail
packages=(
  g++ pkg-config
  bazel-bootstrap bazel-rules-cc bazel-rules-proto bazel-rules-java bazel-skylib
  libabsl-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev libdnnl-dev libopenblas-dev
  nlohmann-json3-dev
  clang-14 libclang-rt-14-dev llvm-14 util-linux python3
  graphviz
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
