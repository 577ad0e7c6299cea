#!/usr/bin/env bash
# The out-of-tree plugin, built as docs/architecture.md says (one g++ line against the
# project's headers) and loaded into hlo-layout.
set -u
root=${TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/${TEST_WORKSPACE:-xla_layout}
out=${TEST_TMPDIR:-$(mktemp -d)}
cd "$root" || exit 1
fail() { echo "FAIL: $*"; echo "out_of_tree_plugin: 0 passed, 1 failed"; exit 1; }
# The documented command, with the runfiles tree standing in for both the
# source tree and bazel-bin.
g++ -std=c++17 -O2 -shared -fPIC -I. -Ibazel-bin examples/plugin/count_ops_plugin.cc \
  -o "$out/count_ops.so" || fail "the documented build command failed"
got=$(tools/hlo-layout examples/mlp.hlo --load-pass-plugin="$out/count_ops.so" \
  --passes=count-ops --stats 2>&1 >/dev/null) || fail "hlo-layout refused the plugin: $got"
want=$'count-ops:\n  add: 1\n  broadcast: 2\n  constant: 1\n  dot: 1\n  maximum: 1\n  parameter: 3'
[ "$got" = "$want" ] || fail "unexpected report:"$'\n'"$got"
got=$(tools/hlo-layout examples/mlp.hlo --load-pass-plugin="$out/count_ops.so" \
  --passes='count-ops{opcode=dot}' --stats=json 2>&1 >/dev/null) || fail "with an option: $got"
[ "$got" = '{"dot":1}' ] || fail "unexpected JSON report: $got"
echo "out_of_tree_plugin: 2 passed, 0 failed"
