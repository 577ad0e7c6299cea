# Sourced by scripts/test.sh and scripts/fuzz.sh: `sanitizer_bazel ARGS...`
# runs Bazel for --config=asan and --config=fuzz (clang) in an output base
# of their own, SANITIZER_OUTPUT_BASE (default
# ~/.cache/xla_layout_sanitizer_output_base). The gcc build keeps its cache,
# and the fuzz build reuses the sanitizer build's objects. No convenience
# symlinks: bazel-bin stays the gcc build's.
sanitizer_base=${SANITIZER_OUTPUT_BASE:-$HOME/.cache/xla_layout_sanitizer_output_base}
sanitizer_bazel() {
  local command=$1; shift
  case $command in
    build|test) bazel --output_base="$sanitizer_base" "$command" --symlink_prefix=/ "$@" ;;
    *) bazel --output_base="$sanitizer_base" "$command" "$@" ;;
  esac
}
