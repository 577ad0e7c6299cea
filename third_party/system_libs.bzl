"""Repository rules that wrap Debian's system packages for an offline build."""

def _debian_rules_cc_impl(rctx):
    src = "/usr/share/bazel/rules/cc"
    rctx.execute(["cp", "-r", src + "/.", "."])

    # Bazel 4 has no use_cpp_toolchain(); the plain toolchain type is equivalent.
    for f in [
        "cc/private/rules_impl/compiler_flag.bzl",
        "cc/private/rules_impl/cc_flags_supplier.bzl",
    ]:
        text = rctx.read(f)
        text = text.replace(', "use_cpp_toolchain")', ")")
        text = text.replace("use_cpp_toolchain()", '["@bazel_tools//tools/cpp:toolchain_type"]')
        rctx.execute(["rm", "-f", f])
        rctx.file(f, text)

debian_rules_cc = repository_rule(
    implementation = _debian_rules_cc_impl,
    local = True,
)

# The Abseil components the project links; pkg-config expands each to its
# full, ordered list of libabsl_*.so.
_ABSL_MODULES = [
    "absl_statusor",
    "absl_status",
    "absl_strings",
    "absl_str_format",
    "absl_flat_hash_map",
    "absl_flat_hash_set",
    "absl_node_hash_map",
    "absl_span",
    "absl_inlined_vector",
    "absl_synchronization",
    "absl_time",
    "absl_hash",
    "absl_random_random",
    "absl_cord",
]

def _system_absl_impl(rctx):
    result = rctx.execute(["pkg-config", "--libs"] + _ABSL_MODULES)
    if result.return_code != 0:
        fail("pkg-config could not find Abseil (apt-get install libabsl-dev): " + result.stderr)
    flags = [f for f in result.stdout.strip().split(" ") if f]
    rctx.file("BUILD", """
# Headers come from the system include path; declaring none keeps
# #include_next and Bazel's header checks working.
cc_library(
    name = "absl",
    linkopts = {flags},
    visibility = ["//visibility:public"],
)
""".format(flags = repr(flags)))
    rctx.file("WORKSPACE", "workspace(name = \"com_google_absl\")\n")

system_absl = repository_rule(
    implementation = _system_absl_impl,
    local = True,
)
