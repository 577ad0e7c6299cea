#!/usr/bin/env bash
# The main job on the bundled examples: installs what is missing, builds
# hlo-layout, runs layout assignment on an MLP layer (the module before and
# after, what the pass did and why each copy exists), then the shape, index and relayout tools.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
bazel build -c opt //tools:hlo-layout
tool=bazel-bin/tools/hlo-layout
echo "\$ cat examples/mlp_row_major.hlo   # before"
cat examples/mlp_row_major.hlo
echo
echo "\$ hlo-layout examples/mlp_row_major.hlo --passes=layout-assignment --target=cpu-avx2 --stats"
"$tool" examples/mlp_row_major.hlo --passes=layout-assignment --target=cpu-avx2 --stats 2>&1
echo
echo "\$ hlo-layout explain examples/mlp_row_major.hlo --passes=layout-assignment --target=cpu-avx2"
echo "# why each copy exists, and the entry layouts that would remove them (measured)"
"$tool" explain examples/mlp_row_major.hlo --passes=layout-assignment --target=cpu-avx2
echo
echo "\$ hlo-layout examples/mlp.hlo --passes=layout-assignment --target=tpu --stats"
"$tool" examples/mlp.hlo --passes=layout-assignment --target=tpu --stats 2>&1
echo
echo "\$ hlo-layout verify examples/mlp_row_major.hlo --passes=layout-assignment --target=cpu-avx2"
echo "# runs the layer before and after the pass, the copies on the packing core"
"$tool" verify examples/mlp_row_major.hlo --passes=layout-assignment --target=cpu-avx2
echo
while IFS= read -r shape; do
  case "$shape" in ""|\#*) continue ;; esac
  echo "\$ hlo-layout shape '$shape'"
  "$tool" shape "$shape"
  echo
done < examples/shapes.txt
echo "\$ hlo-layout shape --grid 'f32[4,8]{1,0:T(2,4)(2,1)}'   # Figure 2"
"$tool" shape --grid 'f32[4,8]{1,0:T(2,4)(2,1)}'
echo
echo "\$ hlo-layout index 'f32[3,5]{1,0:T(2,2)}' 2,3   # Figure 1"
"$tool" index 'f32[3,5]{1,0:T(2,2)}' 2,3
echo
echo "\$ hlo-layout relayout 'f32[1024,1024]{1,0}' 'f32[1024,1024]{1,0:T(8,128)}' --check"
"$tool" relayout 'f32[1024,1024]{1,0}' 'f32[1024,1024]{1,0:T(8,128)}' --check
echo
echo "\$ hlo-layout examples/mlp.hlo   # parse, verify, print canonically"
"$tool" examples/mlp.hlo
[ -n "${CI:-}" ] && bazel shutdown
exit 0
