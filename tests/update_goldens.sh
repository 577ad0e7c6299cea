#!/usr/bin/env bash
# Regenerates every tests/golden/**/*.expected from the current build.
# Review the diff (git diff tests/golden) before committing it.
set -eu
cd "$(dirname "$0")/.."
bazel build //tools:hlo-layout //passes/plugins:all \
  //passes/layout_assignment:layout_assignment_plugin.so
HLO_LAYOUT=$PWD/bazel-bin/tools/hlo-layout BUILD_WORKSPACE_DIRECTORY=$PWD \
  tests/golden_test.sh --update
