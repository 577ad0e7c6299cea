"""The HLO corpus (../shared/hlo-corpus beside the repository) as a Bazel input.

Every *.hlo under the corpus, at any depth, is a file of
@hlo_corpus//:files, so a test that lists it in `data` re-runs when a corpus
file changes, and no cached result survives a change. The repository also
holds `state.txt`, one line that tests read to tell the three cases apart:
  present       the corpus is there (its files are @hlo_corpus//:files);
  declined      XLA_LAYOUT_NO_CORPUS=1: the caller has no corpus, and the
                tests that need one report themselves skipped;
  missing <P>   there is no corpus at P: the tests that need one fail.
XLA_LAYOUT_CORPUS_DIR overrides the location. Both variables are read from
the environment of the bazel command (or --repo_env) and re-evaluate the
repository when they change; so does a restart of the Bazel server.
"""

def _hlo_corpus_impl(rctx):
    env = rctx.os.environ
    declined = env.get("XLA_LAYOUT_NO_CORPUS", "") not in ["", "0"]
    workspace = rctx.path(Label("//:WORKSPACE")).dirname
    where = env.get("XLA_LAYOUT_CORPUS_DIR", "") or str(workspace) + "/" + rctx.attr.path
    corpus = rctx.path(where)
    if declined:
        state = "declined"
    elif not corpus.exists:
        state = "missing " + where
    else:
        # The folder is linked, not copied: the glob below lists its files
        # afresh on every build, and each file's content is a test input.
        rctx.symlink(corpus, "corpus")
        state = "present"
    rctx.file("state.txt", state + "\n")
    rctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % rctx.name)
    rctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

exports_files(["state.txt"])

# Every .hlo of the corpus, at any depth; none when it is missing or declined.
filegroup(
    name = "files",
    srcs = glob(["corpus/**/*.hlo"]),
)
""")

hlo_corpus = repository_rule(
    implementation = _hlo_corpus_impl,
    attrs = {"path": attr.string(doc = "the corpus, relative to the workspace root")},
    environ = ["XLA_LAYOUT_NO_CORPUS", "XLA_LAYOUT_CORPUS_DIR"],
    local = True,
)
