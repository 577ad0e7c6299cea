#include "bench/synthetic_hlo.h"

#include "absl/strings/str_cat.h"

namespace xla_layout {

std::string SyntheticModule(int64_t n, bool layouts) {
  auto L = [layouts](const char* layout) { return layouts ? layout : ""; };
  std::string text = absl::StrCat(
      "HloModule synthetic, replica_count=1\n\n"
      "add_f32 {\n  sa = f32[] parameter(0)\n  sb = f32[] parameter(1)\n"
      "  ROOT ss = f32[] add(sa, sb)\n}\n\n"
      "ENTRY main {\n"
      "  x.0 = f32[128,256]", L("{1,0}"), " parameter(0)\n"
      "  w = f32[256,256]", L("{1,0}"), " parameter(1)\n"
      "  b = f32[256]", L("{0}"), " parameter(2)\n"
      "  zero = f32[] constant(0)\n");
  int64_t count = 7;
  int64_t layer = 0;
  while (count + 9 <= n) {
    std::string l = absl::StrCat(layer);
    std::string meta = absl::StrCat(
        ", metadata={op_type=\"Dense\" op_name=\"model/layer_", l,
        "/MatMul\" source_file=\"model.py\" source_line=", 10 + layer % 90, "}");
    absl::StrAppend(
        &text, "  d.", l, " = f32[128,256]", L("{1,0}"), " dot(x.", l,
        ", w), lhs_contracting_dims={1}, rhs_contracting_dims={0}", meta, "\n",
        "  bb.", l, " = f32[128,256]", L("{1,0}"), " broadcast(b), dimensions={1}\n",
        "  a.", l, " = f32[128,256]", L("{1,0}"), " add(d.", l, ", bb.", l, ")", meta,
        "\n", "  zb.", l, " = f32[128,256]", L("{1,0}"),
        " broadcast(zero), dimensions={}\n", "  r.", l, " = f32[128,256]", L("{1,0}"),
        " maximum(a.", l, ", zb.", l, ")\n", "  t.", l, " = f32[256,128]", L("{0,1}"),
        " transpose(r.", l, "), dimensions={1,0}\n", "  rs.", l, " = f32[256,2,64]",
        L("{2,1,0}"), " reshape(t.", l, ")\n", "  s.", l, " = f32[256]", L("{0}"),
        " reduce(rs.", l, ", zero), dimensions={1,2}, to_apply=add_f32\n");
    absl::StrAppend(&text, "  x.", layer + 1, " = f32[128,256]", L("{1,0}"),
                    " negate(r.", l, ")", meta, "\n");
    count += 9;
    ++layer;
  }
  absl::StrAppend(&text, "  ROOT out = f32[128,256]", L("{1,0}"), " copy(x.", layer,
                  ")\n}\n");
  return text;
}

std::string ChainModule(int64_t n) {
  std::string text =
      "HloModule chain\n\nENTRY main {\n"
      "  x.0 = f32[64,256] parameter(0)\n  w = f32[256,256] parameter(1)\n";
  int64_t link = 0;
  for (int64_t count = 3; count + 4 <= n; count += 4, ++link) {
    const std::string l = absl::StrCat(link);
    absl::StrAppend(&text, "  d.", l, " = f32[64,256] dot(x.", l,
                    ", w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n", "  t.", l,
                    " = f32[256,64] transpose(d.", l, "), dimensions={1,0}\n", "  u.", l,
                    " = f32[64,256] transpose(t.", l, "), dimensions={1,0}\n", "  x.", link + 1,
                    " = f32[64,256] add(u.", l, ", d.", l, ")\n");
  }
  absl::StrAppend(&text, "  ROOT out = f32[64,256] negate(x.", link, ")\n}\n");
  return text;
}

}  // namespace xla_layout
