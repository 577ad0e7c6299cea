# Sourced by the shell tests that read the HLO corpus. Such a test lists
# @hlo_corpus//:files and @hlo_corpus//:state.txt in its data (see
# third_party/hlo_corpus.bzl), so it re-runs when a corpus file changes.
# Sets:
#   corpus_state  present, declined (XLA_LAYOUT_NO_CORPUS=1: the test skips
#                 what needs the corpus) or missing (the test fails it);
#   corpus_dir    the corpus folder when present, the path that is missing
#                 when missing;
#   corpus_files  every *.hlo below the folder, at any depth, sorted.
# Outside `bazel test` (tests/update_goldens.sh), the corpus is
# ../shared/hlo-corpus beside the workspace.
corpus_state=missing corpus_dir="" corpus_files=""
if [ -f "${TEST_SRCDIR:-}/hlo_corpus/state.txt" ]; then
  read -r corpus_state corpus_dir < "$TEST_SRCDIR/hlo_corpus/state.txt"
  [ "$corpus_state" = present ] && corpus_dir=$TEST_SRCDIR/hlo_corpus/corpus
elif [ -n "${XLA_LAYOUT_NO_CORPUS:-}" ] && [ "$XLA_LAYOUT_NO_CORPUS" != 0 ]; then
  corpus_state=declined
else
  corpus_dir=${BUILD_WORKSPACE_DIRECTORY:-$(pwd)}/../shared/hlo-corpus
  [ -d "$corpus_dir" ] && corpus_state=present
fi
if [ "$corpus_state" = present ]; then
  corpus_dir=$(cd "$corpus_dir" && pwd)
  corpus_files=$(find -L "$corpus_dir" -name '*.hlo' -type f | sort)
  [ -z "$corpus_files" ] && corpus_state=missing
fi
# The message for a test that needs the corpus and has none.
corpus_missing_message="no HLO corpus at ${corpus_dir:-?} (set XLA_LAYOUT_NO_CORPUS=1 to test without one)"
