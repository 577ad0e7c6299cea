"""headers_only: the headers (and include paths) of C++ libraries, no objects.

A pass plugin compiles against the IR's headers and binds at load time to the
one copy of the IR, the registry and the protobuf descriptors that the host
program exports (-rdynamic). Linking the libraries into the plugin would make
a second copy of every global.
"""

def _headers_only_impl(ctx):
    merged = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps])
    return [CcInfo(compilation_context = merged.compilation_context)]

headers_only = rule(
    implementation = _headers_only_impl,
    attrs = {"deps": attr.label_list(providers = [CcInfo])},
)

def _header_files_impl(ctx):
    headers = [cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps]).compilation_context.headers]
    files = depset(transitive = headers)
    return [DefaultInfo(files = files, runfiles = ctx.runfiles(transitive_files = files))]

# header_files: the header files of C++ libraries (generated ones included)
# as data, so that a test can compile against them as an outside user would.
header_files = rule(
    implementation = _header_files_impl,
    attrs = {"deps": attr.label_list(providers = [CcInfo])},
)
