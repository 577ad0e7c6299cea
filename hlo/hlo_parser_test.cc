#include "hlo/hlo_parser.h"
#include "hlo/hlo_test_util.h"

#include <cfloat>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_corpus.h"
#include "hlo/hlo_literal.h"
#include "hlo/hlo_verifier.h"
#include "xla_layout/shape_text.h"

namespace xla_layout {
namespace {

using ::testing::HasSubstr;


std::string ParseError(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  EXPECT_FALSE(m.ok());
  return m.ok() ? "" : std::string(m.status().message());
}

// Same instructions, shapes, layouts, opcodes, operands and attributes.
void ExpectSameModule(const HloModule& a, const HloModule& b) {
  ASSERT_EQ(a.name(), b.name());
  ASSERT_EQ(a.computations().size(), b.computations().size());
  for (size_t c = 0; c < a.computations().size(); ++c) {
    std::vector<HloInstruction*> x = a.computations()[c]->instructions();
    std::vector<HloInstruction*> y = b.computations()[c]->instructions();
    ASSERT_EQ(x.size(), y.size());
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(x[i]->name(), y[i]->name());
      EXPECT_EQ(x[i]->opcode(), y[i]->opcode());
      EXPECT_EQ(x[i]->shape(), y[i]->shape()) << x[i]->name();
      ASSERT_EQ(x[i]->operand_count(), y[i]->operand_count());
      for (int k = 0; k < x[i]->operand_count(); ++k) {
        EXPECT_EQ(x[i]->operand(k)->name(), y[i]->operand(k)->name());
      }
      ASSERT_EQ(x[i]->raw_attributes().size(), y[i]->raw_attributes().size());
      EXPECT_EQ(x[i]->literal(), y[i]->literal());
    }
    EXPECT_EQ(a.computations()[c]->root()->name(),
              b.computations()[c]->root()->name());
  }
}

// Operands are resolved as soon as their names are defined; a name defined
// later in the computation waits for its end. Both kinds keep the written
// operand order, and the checks on written operand shapes apply to both.
TEST(HloParserTest, OperandsDefinedLaterResolveAtTheEndInOrder) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(
HloModule fwd
ENTRY e {
  a = f32[4] parameter(0)
  s = f32[4] add(f32[4] b, a)
  b = f32[4] negate(a)
  ROOT r = f32[4] multiply(a, s)
})");
  ASSERT_NE(m, nullptr);
  HloComputation* entry = m->entry();
  HloInstruction* s = entry->FindInstruction("s");
  ASSERT_EQ(s->operand_count(), 2);
  EXPECT_EQ(s->operand(0)->name(), "b");
  EXPECT_EQ(s->operand(1)->name(), "a");
  EXPECT_EQ(entry->FindInstruction("r")->operand(1), s);
  EXPECT_EQ(entry->FindInstruction("b")->users().size(), 1u);
  EXPECT_EQ(entry->FindInstruction("a")->users().size(), 3u);
  EXPECT_TRUE(VerifyModule(*m).ok());
  EXPECT_THAT(ParseError(R"(
HloModule fwd
ENTRY e {
  a = f32[4] parameter(0)
  s = f32[4] add(f32[8] b, a)
  ROOT b = f32[4] negate(a)
})"),
              HasSubstr("t.hlo:5:25: error: operand 'b' is written as f32[8] but its shape is f32[4]{0}"));
  EXPECT_THAT(ParseError(R"(
HloModule fwd
ENTRY e {
  a = f32[4] parameter(0)
  ROOT s = f32[4] add(a, f32[8] a)
})"),
              HasSubstr("t.hlo:5:33: error: operand 'a' is written as f32[8] but its shape is f32[4]{0}"));
  EXPECT_THAT(ParseError(R"(
HloModule fwd
ENTRY e {
  a = f32[4] parameter(0)
  ROOT s = f32[4] add(a, c)
})"),
              HasSubstr("use of undefined instruction 'c' in 'e'"));
}

TEST(HloCorpusTest, EveryFileParsesVerifiesAndRoundTrips) {
  std::optional<std::string> dir = HloCorpusDir();
  if (!dir) GTEST_SKIP() << "no HLO corpus (XLA_LAYOUT_NO_CORPUS)";
  absl::StatusOr<std::vector<CorpusFile>> corpus = ReadHloCorpus(*dir);
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  int real = 0;
  for (const CorpusFile& file : *corpus) {
    SCOPED_TRACE(file.path);
    absl::StatusOr<std::unique_ptr<HloModule>> m =
        ParseHloModule(file.text, file.path, nullptr, CorpusParseOptions(file));
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_TRUE(VerifyModule(**m).ok()) << VerifyModule(**m);
    std::string printed = (*m)->ToString();
    std::unique_ptr<HloModule> again = ParseTestModule(printed);
    ASSERT_NE(again, nullptr) << printed;
    ExpectSameModule(**m, *again);
    EXPECT_EQ(again->ToString(), printed);
    real += absl::StartsWith(file.relative, "real/");
  }
  // The corpus holds XLA's test modules and the framework dumps of real/.
  EXPECT_GE(corpus->size(), 10u);
  EXPECT_GE(real, 4);
}

// The parser hashes the next line's name ahead and reuses that hash only
// for that very name: lines whose look-ahead finds another name, or none,
// still resolve, and a name defined again on the next line is refused.
TEST(HloParserTest, NamesHashedAheadResolveOnlyAsThemselves) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(
HloModule ahead
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] negate(x)
  // no name ahead of y: what it hashed last is y's own name
  z = f32[4] negate(y)
  zz = f32[4] negate(z)

  %w = f32[4] negate(zz)
  ROOT %r = f32[4] add(x, %w)
})");
  ASSERT_NE(m, nullptr);
  HloComputation* entry = m->entry();
  EXPECT_EQ(entry->FindInstruction("zz")->operand(0)->name(), "z");
  EXPECT_EQ(entry->FindInstruction("w")->operand(0)->name(), "zz");
  EXPECT_EQ(entry->root()->operand(1)->name(), "w");
  EXPECT_THAT(ParseError("HloModule m\nENTRY e {\n  x.1 = f32[] parameter(0)\n"
                         "  ROOT %x.1 = f32[] negate(x.1)\n}\n"),
              HasSubstr("t.hlo:4:8: error: instruction 'x.1' is defined twice"));
}

TEST(HloParserTest, FormsAndAttributes) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(
HloModule m, replica_count=2, entry_computation_layout={(f32[2,3]{0,1})->f32[3]{0}}

add_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY %main (p: f32[2,3]) -> f32[3] {
  %p = f32[2,3]{0,1} parameter(0)
  /* a comment */ zero = f32[] constant(0)
  t = (f32[2,3], f32[]) tuple(p, zero), sharding={{replicated}, {maximal device=0}}
  g = f32[2,3] get-tuple-element(t), index=0
  sl = f32[1,3] slice(g), slice={[0:1], [0:3:1]}
  pd = f32[2,5] pad(sl, zero), padding=0_1x1_1
  c = f32[2,2] constant({{1,2},{3,4}}), metadata={op_name="a,b" source_file="x.py"}
  ROOT r = f32[3]{0} reduce(f32[2,3] g, zero), dimensions={0}, to_apply=add_f32
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);
  HloComputation* entry = m->entry();
  EXPECT_EQ(entry->name(), "main");
  EXPECT_EQ(entry->root()->name(), "r");
  HloInstruction* r = entry->root();
  EXPECT_EQ(r->attributes().dimensions, std::vector<int64_t>{0});
  EXPECT_EQ(r->called_computation("to_apply")->name(), "add_f32");
  EXPECT_EQ(entry->FindInstruction("g")->attributes().index(), 0);
  EXPECT_EQ(entry->FindInstruction("sl")->attributes().rare().slice->size(), 2u);
  EXPECT_EQ((*entry->FindInstruction("pd")->attributes().rare().padding)[1][1], 1);
  EXPECT_EQ(entry->FindInstruction("c")->literal(), "{{1,2},{3,4}}");
  EXPECT_EQ(entry->FindInstruction("g")->shape().ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(m->header_attributes()[0].value, "2");
  EXPECT_EQ(m->entry_computation_layout()->parameters[0].ToString(),
            "f32[2,3]{0,1}");
  ASSERT_TRUE(entry->has_signature());
  EXPECT_EQ(entry->signature()->parameters[0].first, "p");
  EXPECT_EQ(entry->signature()->parameters[0].second.ToString(), "f32[2,3]");
  EXPECT_EQ(entry->signature()->result.ToString(), "f32[3]");
  EXPECT_FALSE(m->FindComputation("add_f32")->has_signature());
  // The last instruction is the root when none is marked.
  EXPECT_EQ(m->FindComputation("add_f32")->root()->name(), "s");
  std::string text = m->ToString();
  EXPECT_THAT(text, HasSubstr("slice={[0:1], [0:3]}"));
  EXPECT_THAT(text, HasSubstr("padding=0_1x1_1"));
  EXPECT_THAT(text, HasSubstr("sharding={{replicated}, {maximal device=0}}"));
  EXPECT_THAT(text, HasSubstr("metadata={op_name=\"a,b\" source_file=\"x.py\"}"));
  EXPECT_THAT(text, HasSubstr("to_apply=%add_f32"));
  EXPECT_EQ(ParseTestModule(text)->ToString(), text);
}

TEST(HloParserTest, ErrorsPointAtTheProblem) {
  EXPECT_EQ(ParseError("HloModule m\nENTRY e {\n  x = f32[] frob()\n}\n"),
            "t.hlo:3:13: error: unknown opcode 'frob'\n"
            "  x = f32[] frob()\n"
            "            ^");
  EXPECT_THAT(ParseError("HloModule m\nENTRY e {\n  ROOT x = f32[] negate(y)\n}\n"),
              HasSubstr("t.hlo:3:25: error: use of undefined instruction 'y'"));
  EXPECT_THAT(ParseError("HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  x = f32[] "
                         "parameter(1)\n}\n"),
              HasSubstr("t.hlo:4:3: error: instruction 'x' is defined twice"));
  EXPECT_THAT(ParseError("HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n"
                         "  ROOT y = f32[2] negate(f32[3] x)\n}\n"),
              HasSubstr("t.hlo:4:33: error: operand 'x' is written as f32[3] but "
                        "its shape is f32[2]{0}"));
  EXPECT_THAT(ParseError("HloModule m\nENTRY e {\n  x = f32[2]{0,1} parameter(0)\n}\n"),
              HasSubstr("t.hlo:3:13: error: Dimensions size is 1, but minor to "
                        "major size is 2."));
  EXPECT_THAT(ParseError("HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n"),
              HasSubstr("expected '}' to close computation 'e', found end of file"));
  EXPECT_THAT(ParseError("HloModule m\nENTRY e {\n  ROOT x = f32[2] call(), to_apply=nope\n}\n"),
              HasSubstr("computation 'nope' (to_apply) is not defined"));
  EXPECT_THAT(ParseError("module m"),
              HasSubstr("t.hlo:1:8: error: expected '{' to open computation "
                        "'module' (a module starts with 'HloModule' or a "
                        "computation), found 'm'"));
  EXPECT_THAT(ParseError("HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n"
                         "  ROOT y = reshape(x)\n}\n"),
              HasSubstr("t.hlo:4:12: error: the shape of 'y' (reshape) cannot be "
                        "inferred; write it before the opcode"));
  EXPECT_THAT(ParseError("HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n"
                         "  ROOT y = dot(x, x), lhs_contracting_dims={1}, "
                         "rhs_contracting_dims={0}\n}\n"),
              HasSubstr("the shape of 'y' (dot) cannot be inferred: dot's lhs "
                        "contracting and batch dims [1] are not distinct dims of a "
                        "rank-1 operand"));
}

TEST(HloVerifierTest, CatchesBrokenModules) {
  auto verify = [](absl::string_view text) {
    std::unique_ptr<HloModule> m = ParseTestModule(text);
    return m ? std::string(VerifyModule(*m).message()) : std::string("parse failed");
  };
  EXPECT_THAT(verify("HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n"
                     "  y = f32[3] parameter(1)\n  ROOT z = f32[2] add(x, y)\n}\n"),
              HasSubstr("instruction 'z': elementwise add has operand 1 of shape "
                        "f32[3]{0} but result f32[2]{0}"));
  EXPECT_THAT(verify("HloModule m\nENTRY e {\n  ROOT x = f32[2] parameter(1)\n}\n"),
              HasSubstr("parameter 0 is missing"));
  EXPECT_THAT(verify("HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n"
                     "  ROOT t = (f32[3]) tuple(x)\n}\n"),
              HasSubstr("tuple element 0 is f32[3]{0} but operand is f32[2]{0}"));
  // The parser renames a later namesake; a module a pass built is checked.
  std::unique_ptr<HloModule> twice =
      ParseTestModule("HloModule m\nc {\n  ROOT a = f32[] parameter(0)\n}\n"
                      "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT b = f32[] negate(a)\n}\n");
  ASSERT_NE(twice, nullptr);
  twice->entry()->FindInstruction("a.1")->set_name("a");
  EXPECT_THAT(std::string(VerifyModule(*twice).message()),
              HasSubstr("instruction name is not unique in the module"));
  // Many namesakes: the error names the first instruction, in module order,
  // whose name an earlier one has (here the second of 1000 "same"s).
  std::string many = "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n";
  for (int k = 0; k < 3000; ++k) absl::StrAppend(&many, "  n", k, " = f32[] negate(p)\n");
  many += "  ROOT r = f32[] negate(p)\n}\n";
  std::unique_ptr<HloModule> namesakes = ParseTestModule(many);
  ASSERT_NE(namesakes, nullptr);
  EXPECT_TRUE(VerifyModule(*namesakes).ok());
  namesakes->entry()->FindInstruction("n2999")->set_name("n7");
  for (int k = 1000; k < 2000; ++k) {
    namesakes->entry()->FindInstruction(absl::StrCat("n", k))->set_name("same");
  }
  EXPECT_THAT(std::string(VerifyModule(*namesakes).message()),
              HasSubstr("t.hlo:1005:3: error: verifier: computation 'e', instruction 'same': "
                        "instruction name is not unique in the module"));
  EXPECT_THAT(verify("HloModule m, entry_computation_layout={(f32[3])->f32[2]}\n"
                     "ENTRY e {\n  ROOT x = f32[2] parameter(0)\n}\n"),
              HasSubstr("entry_computation_layout gives f32[3]"));
}

// The verifier's error for a module that parses, or "" when it verifies.
std::string VerifyError(absl::string_view text) {
  std::unique_ptr<HloModule> m = ParseTestModule(text);
  if (m == nullptr) return "parse failed";
  return std::string(VerifyModule(*m).message());
}

// `body` as the entry of a module with parameter p = f32[4,8].
std::string Entry(absl::string_view body) {
  return absl::StrCat("HloModule m\nENTRY e {\n  p = f32[4,8] parameter(0)\n", body, "\n}\n");
}

TEST(HloVerifierTest, ClampBoundsHaveTheOperandsType) {
  EXPECT_EQ(VerifyError(Entry("  lo = f32[] constant(0)\n"
                              "  ROOT c = f32[4,8] clamp(lo, p, lo)")), "");
  EXPECT_THAT(VerifyError(Entry("  lo = s32[] constant(0)\n  hi = f32[] constant(1)\n"
                                "  ROOT c = f32[4,8] clamp(lo, p, hi)")),
              HasSubstr("t.hlo:6:8: error: verifier: computation 'e', instruction 'c': clamp's "
                        "lower bound is s32 but its operand is f32; the three must have one "
                        "type"));
  EXPECT_THAT(VerifyError(Entry("  lo = f32[] constant(0)\n  hi = f16[4,8] convert(p)\n"
                                "  ROOT c = f32[4,8] clamp(lo, p, hi)")),
              HasSubstr("clamp's upper bound is f16 but its operand is f32"));
}

TEST(HloVerifierTest, CompareDirectionIsOneXlaKnows) {
  for (absl::string_view ok : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    EXPECT_EQ(VerifyError(Entry(absl::StrCat("  ROOT c = pred[4,8] compare(p, p), direction=",
                                             ok))),
              "");
  }
  EXPECT_THAT(VerifyError(Entry("  ROOT c = pred[4,8] compare(p, p), direction=LTE")),
              HasSubstr("t.hlo:4:8: error: verifier: computation 'e', instruction 'c': "
                        "compare's direction 'LTE' is not one of EQ, NE, LT, LE, GT, GE"));
  EXPECT_THAT(VerifyError(Entry("  ROOT c = pred[4,8] compare(p, p)")),
              HasSubstr("compare's direction (none) is not one of"));
  // A shape left out is inferred only for a direction that exists.
  EXPECT_THAT(ParseError(Entry("  ROOT c = compare(p, p), direction=lt")),
              HasSubstr("t.hlo:4:12: error: the shape of 'c' (compare) cannot be inferred: "
                        "compare's direction 'lt' is not one of"));
}

TEST(HloVerifierTest, DynamicSliceStartIndicesAreIntegers) {
  EXPECT_EQ(VerifyError(Entry("  i = u32[] constant(1)\n"
                              "  ROOT s = f32[2,8] dynamic-slice(p, i, i), "
                              "dynamic_slice_sizes={2,8}")),
            "");
  EXPECT_THAT(VerifyError(Entry("  i = s32[] constant(1)\n  f = f32[] constant(1)\n"
                                "  ROOT s = f32[2,8] dynamic-slice(p, i, f), "
                                "dynamic_slice_sizes={2,8}")),
              HasSubstr("t.hlo:6:8: error: verifier: computation 'e', instruction 's': "
                        "dynamic-slice's start index (operand 2) is f32; start indices are "
                        "integers"));
  EXPECT_THAT(VerifyError(Entry("  u = f32[2,8] parameter(1)\n  f = bf16[] parameter(2)\n"
                                "  ROOT s = f32[4,8] dynamic-update-slice(p, u, f, f)")),
              HasSubstr("dynamic-update-slice's start index (operand 2) is bf16"));
}

// An out-of-range dim used to reach the executor, which wrote outside its
// per-dim table (a heap corruption under `hlo-layout run`).
TEST(HloVerifierTest, ReverseDimsAreDistinctAndInRange) {
  EXPECT_EQ(VerifyError(Entry("  ROOT r = f32[4,8] reverse(p), dimensions={1,0}")), "");
  EXPECT_EQ(VerifyError(Entry("  ROOT r = f32[4,8] reverse(p), dimensions={}")), "");
  for (absl::string_view bad : {"{2}", "{1000000}", "{-1}", "{1,1}"}) {
    EXPECT_THAT(VerifyError(Entry(absl::StrCat("  ROOT r = f32[4,8] reverse(p), dimensions=",
                                               bad))),
                HasSubstr(absl::StrCat("t.hlo:4:8: error: verifier: computation 'e', "
                                       "instruction 'r': reverse's dimensions [",
                                       bad.substr(1, bad.size() - 2),
                                       "] are not distinct dims of a rank-2 operand")))
        << bad;
  }
}

// Sizes wrapped past int64 used to give a small size, and a module written
// with it was accepted.
TEST(HloVerifierTest, PadAndWindowSizesDoNotWrap) {
  const char* kMax = "9223372036854775807";
  auto module = [](absl::string_view body) {
    return absl::StrCat(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[3] parameter(0)
  z = f32[] constant(0)
  )", body, "\n}\n");
  };
  // 3 + 2 * (2^63 - 1) wraps to 1.
  EXPECT_THAT(VerifyError(module(absl::StrCat("ROOT r = f32[1] pad(p, z), padding=0_0_", kMax))),
              HasSubstr(absl::StrCat("t.hlo:10:8: error: verifier: computation 'e', instruction "
                                     "'r': pad gives dim 0 (3 elements, padding 0_0_", kMax,
                                     ") a size that overflows int64")));
  EXPECT_THAT(VerifyError(module(absl::StrCat("ROOT r = f32[2] pad(p, z), padding=", kMax, "_1"))),
              HasSubstr("pad gives dim 0"));
  // A window of 3 dilated by 2^63 - 1 wraps to -1 and left 5 of 3.
  EXPECT_THAT(VerifyError(module(absl::StrCat("ROOT r = f32[5] reduce-window(p, z), window="
                                              "{size=3 rhs_dilate=", kMax, "}, to_apply=add"))),
              HasSubstr(absl::StrCat("t.hlo:10:8: error: verifier: computation 'e', "
                                     "instruction 'r': the window gives dim 0 (3 elements, "
                                     "lhs_dilate 1, rhs_dilate ", kMax,
                                     ", pad 0_0) a size that overflows int64")));
  EXPECT_THAT(VerifyError(module(absl::StrCat("ROOT r = f32[0] reduce-window(p, z), window="
                                              "{size=1 lhs_dilate=", kMax, "}, to_apply=add"))),
              HasSubstr("the window gives dim 0"));
  EXPECT_THAT(VerifyError(module(absl::StrCat("ROOT r = f32[3] reduce-window(p, z), window="
                                              "{size=1 pad=", kMax, "_1}, to_apply=add"))),
              HasSubstr("the window gives dim 0"));
  EXPECT_EQ(VerifyError(module("ROOT r = f32[2] reduce-window(p, z), window={size=2}, "
                               "to_apply=add")),
            "");
  EXPECT_THAT(VerifyError(R"(HloModule m
ENTRY e {
  x = f32[1,8,8,3] parameter(0)
  k = f32[3,3,3,16] parameter(1)
  ROOT c = f32[1,8,8,16] convolution(x, k), window={size=3x3 pad=1_1x1_1 lhs_dilate=1x4611686018427387904}, dim_labels=b01f_01io->b01f
})"),
              HasSubstr("instruction 'c': the window gives dim 1 (8 elements, lhs_dilate "
                        "4611686018427387904"));
}

// select-and-scatter's source has the dims its window leaves of the operand
// (the windowed arithmetic checked as for reduce-window).
TEST(HloVerifierTest, SelectAndScatterSourceFitsTheWindow) {
  auto module = [](absl::string_view source, absl::string_view window) {
    return absl::StrCat(R"(HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4,6] parameter(0)
  s = f32[)", source, R"(] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[4,6] select-and-scatter(p, s, z), window={)", window, R"(}, select=ge, scatter=add
})");
  };
  EXPECT_EQ(VerifyError(module("2,3", "size=2x2 stride=2x2")), "");
  EXPECT_THAT(VerifyError(module("2,2", "size=2x2 stride=2x2")),
              HasSubstr("t.hlo:16:8: error: verifier: computation 'e', instruction 'r': "
                        "select-and-scatter's source is f32[2,2]{1,0} but the window leaves "
                        "[2,3] of the operand"));
  EXPECT_THAT(VerifyError(module("2,3", "size=2x2 stride=2x2 pad=0_0x0_9223372036854775807")),
              HasSubstr("the window gives dim 1 (6 elements"));
}

// A module printed in pieces (flushed past 1 MiB, between lines) is the
// same text as printed whole.
TEST(HloModuleTest, PrintInPiecesMatchesToString) {
  std::string text = "HloModule big\nENTRY e {\n  x.0 = f32[64,256]{1,0} parameter(0)\n";
  for (int k = 0; k < 30000; ++k) {
    absl::StrAppend(&text, "  x.", k + 1, " = f32[64,256]{1,0} negate(f32[64,256]{1,0} x.", k,
                    ")\n");
  }
  text += "}\n";
  std::unique_ptr<HloModule> m = ParseTestModule(text);
  ASSERT_NE(m, nullptr);
  const std::string whole = m->ToString();
  std::string pieces, buffer;
  int flushes = 0;
  m->Print(&buffer, {}, [&](std::string& piece) {
    EXPECT_GE(piece.size(), size_t{1} << 20);
    EXPECT_EQ(piece.back(), '\n');
    pieces += piece;
    piece.clear();
    ++flushes;
  });
  pieces += buffer;
  EXPECT_GE(flushes, 1);
  EXPECT_EQ(pieces, whole);
}

TEST(HloModuleTest, EditingApi) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(HloModule m
ENTRY e {
  p = f32[4,8] parameter(0)
  n = f32[4,8] negate(p)
  dead = f32[4,8] abs(n)
  ROOT r = f32[4,8] add(n, n)
})");
  HloComputation* e = m->entry();
  HloInstruction* n = e->FindInstruction("n");
  EXPECT_EQ(n->users().size(), 2u);  // r (once) and dead
  // Insert a copy with another layout between n and its users.
  Shape copy_shape = n->shape();
  copy_shape.set_layout(Layout({0, 1}));
  auto copy = std::make_unique<HloInstruction>("n.copy", HloOpcode::kCopy, copy_shape);
  HloInstruction* c = e->AddInstruction(std::move(copy), e->FindInstruction("dead"));
  n->ReplaceAllUsesWith(c);
  c->AppendOperand(n);
  EXPECT_EQ(e->root()->operand(0), c);
  EXPECT_EQ(e->RemoveDeadInstructions(), 1);
  EXPECT_EQ(e->FindInstruction("dead"), nullptr);
  std::vector<std::string> order;
  for (HloInstruction* i : e->MakePostOrder()) order.push_back(i->name());
  EXPECT_EQ(order, (std::vector<std::string>{"p", "n", "n.copy", "r"}));
  EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);
  EXPECT_THAT(m->ToString(),
              HasSubstr("%n.copy = f32[4,8]{0,1} copy(f32[4,8]{1,0} %n)"));
  // Replacing the root makes the replacement the root.
  HloInstruction* r = e->root();
  auto neg = std::make_unique<HloInstruction>("r2", HloOpcode::kNegate, r->shape());
  HloInstruction* r2 = e->AddInstruction(std::move(neg));
  r->ReplaceAllUsesWith(r2);
  r2->AppendOperand(r);
  EXPECT_EQ(e->root(), r2);
}

// parameters() is kept as instructions are added, however they are added,
// and reads each parameter's number when asked.
TEST(HloModuleTest, ParametersFollowEveryEdit) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(HloModule m
ENTRY e {
  p1 = f32[4] parameter(1)
  p0 = f32[4] parameter(0)
  ROOT r = f32[4] add(p0, p1)
})");
  HloComputation* e = m->entry();
  auto names = [](const HloComputation& c) {
    std::vector<std::string> out;
    for (HloInstruction* p : c.parameters()) out.push_back(p ? p->name() : "-");
    return out;
  };
  EXPECT_EQ(names(*e), (std::vector<std::string>{"p0", "p1"}));
  auto param = [](std::string name, int64_t n) {
    auto p = std::make_unique<HloInstruction>(std::move(name), HloOpcode::kParameter,
                                              *ParseShape("f32[4]"));
    p->set_parameter_number(n);
    return p;
  };
  e->AddInstruction(param("p3", 3));
  EXPECT_EQ(names(*e), (std::vector<std::string>{"p0", "p1", "-", "p3"}));
  e->AddInstruction(param("p2", 2), e->FindInstruction("p0"));
  EXPECT_EQ(names(*e), (std::vector<std::string>{"p0", "p1", "p2", "p3"}));
  std::vector<std::pair<HloInstruction*, std::unique_ptr<HloInstruction>>> batch;
  batch.emplace_back(e->FindInstruction("r"), param("p5", 5));
  batch.emplace_back(nullptr, std::make_unique<HloInstruction>(
                                  "n", HloOpcode::kNegate, *ParseShape("f32[4]")));
  e->InsertInstructions(std::move(batch));
  EXPECT_EQ(names(*e), (std::vector<std::string>{"p0", "p1", "p2", "p3", "-", "p5"}));
  e->FindInstruction("p5")->set_parameter_number(4);
  EXPECT_EQ(names(*e), (std::vector<std::string>{"p0", "p1", "p2", "p3", "p5"}));
  // Parameters survive dead-code removal, and so does what parameters() says.
  e->RemoveDeadInstructions();
  EXPECT_EQ(names(*e), (std::vector<std::string>{"p0", "p1", "p2", "p3", "p5"}));
  std::unique_ptr<HloComputation> clone =
      e->Clone("e2", [](absl::string_view name) { return absl::StrCat(name, ".c"); });
  EXPECT_EQ(names(*clone), (std::vector<std::string>{"p0.c", "p1.c", "p2.c", "p3.c", "p5.c"}));
  // Of two parameters with one number, the one added last, wherever it sits.
  e->AddInstruction(param("q1", 1), e->FindInstruction("p0"));
  EXPECT_EQ(names(*e), (std::vector<std::string>{"p0", "q1", "p2", "p3", "p5"}));
}

// instruction_range() views the instructions instructions() copies: the
// same ones, in print order, after every kind of edit.
TEST(HloModuleTest, InstructionRangeViewsWhatInstructionsCopies) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  n = f32[4] negate(p0)
  dead = f32[4] abs(p0)
  ROOT r = f32[4] add(n, n)
})");
  HloComputation* e = m->entry();
  auto same = [](const HloComputation& c) {
    std::vector<HloInstruction*> copy = c.instructions();
    HloComputation::InstructionRange view = c.instruction_range();
    std::vector<HloInstruction*> walked(view.begin(), view.end());
    EXPECT_EQ(walked, copy);
    EXPECT_EQ(view.size(), copy.size());
    EXPECT_EQ(view.empty(), copy.empty());
    for (size_t k = 0; k < copy.size(); ++k) EXPECT_EQ(view[k], copy[k]) << k;
    if (!copy.empty()) {
      EXPECT_EQ(view.back(), copy.back());
    }
    std::vector<std::string> names;
    for (HloInstruction* i : view) names.push_back(i->name());
    return names;
  };
  EXPECT_EQ(same(*e), (std::vector<std::string>{"p0", "n", "dead", "r"}));
  e->AddInstruction(std::make_unique<HloInstruction>("a", HloOpcode::kAbs, *ParseShape("f32[4]")),
                    e->FindInstruction("n"));
  EXPECT_EQ(same(*e), (std::vector<std::string>{"p0", "a", "n", "dead", "r"}));
  EXPECT_EQ(e->RemoveDeadInstructions(), 2);
  EXPECT_EQ(same(*e), (std::vector<std::string>{"p0", "n", "r"}));
  HloComputation empty("none");
  EXPECT_TRUE(same(empty).empty());
}

// The range's steps load instructions ahead, never past the last one (under
// AddressSanitizer a read past a full vector's storage fails): walks of
// every length around the distance ahead, by either increment, see every
// instruction once, in order.
TEST(HloModuleTest, InstructionRangeWalksEveryLengthToItsEnd) {
  HloComputation c("c");
  for (int n = 0; n <= 40; ++n) {
    std::vector<HloInstruction*> copy = c.instructions();
    HloComputation::InstructionRange view = c.instruction_range();
    std::vector<HloInstruction*> pre, post;
    for (auto it = view.begin(); it != view.end(); ++it) pre.push_back(*it);
    for (auto it = view.begin(); it != view.end();) post.push_back(*it++);
    EXPECT_EQ(pre, copy) << n;
    EXPECT_EQ(post, copy) << n;
    c.AddInstruction(std::make_unique<HloInstruction>(absl::StrCat("p", n),
                                                      HloOpcode::kParameter, Shape(F32, {})));
  }
}

// ReplaceInstructions puts each replacement in its instruction's place, with
// the uses and the root, batch after batch: a second batch may replace a
// replacement of the first (a local id the first batch gave out).
TEST(HloModuleTest, ReplaceInstructionsInPlaceBatchAfterBatch) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  n = f32[4] negate(p0)
  a = f32[4] abs(n)
  ROOT r = f32[4] add(n, a)
})");
  HloComputation* e = m->entry();
  auto unary = [&](const std::string& name, HloOpcode op, const std::string& operand) {
    auto i = std::make_unique<HloInstruction>(name, op, *ParseShape("f32[4]{0}"));
    i->AppendOperand(e->FindInstruction(operand));
    return i;
  };
  auto order = [](const HloComputation& c) {
    std::vector<std::string> names;
    for (HloInstruction* i : c.instruction_range()) names.push_back(i->name());
    return names;
  };
  std::vector<std::pair<HloInstruction*, std::unique_ptr<HloInstruction>>> batch;
  batch.emplace_back(e->FindInstruction("n"), unary("n2", HloOpcode::kCopy, "p0"));
  batch.emplace_back(e->FindInstruction("r"), unary("r2", HloOpcode::kNegate, "a"));
  e->ReplaceInstructions(std::move(batch));
  EXPECT_EQ(order(*e), (std::vector<std::string>{"p0", "n2", "a", "r2"}));
  EXPECT_EQ(e->root()->name(), "r2");
  EXPECT_EQ(e->FindInstruction("a")->operand(0)->name(), "n2");
  EXPECT_EQ(e->FindInstruction("n2")->users().size(), 1u);
  batch.clear();
  batch.emplace_back(e->FindInstruction("n2"), unary("n3", HloOpcode::kAbs, "p0"));
  e->ReplaceInstructions(std::move(batch));
  e->ReplaceInstructions({});
  EXPECT_EQ(order(*e), (std::vector<std::string>{"p0", "n3", "a", "r2"}));
  EXPECT_EQ(e->FindInstruction("a")->operand(0)->name(), "n3");
  EXPECT_EQ(e->FindInstruction("p0")->users().size(), 1u);
  EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);
}

// ReplaceInstructionAt replaces one instruction in its slot: the uses, the
// root and the users of its operands follow, and a range taken before stays
// valid and yields the replacement.
TEST(HloModuleTest, ReplaceInstructionAtKeepsTheSlotAndTheUses) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  n = f32[4] negate(p0)
  ROOT a = f32[4] abs(n)
})");
  HloComputation* e = m->entry();
  const HloComputation::InstructionRange range = e->instruction_range();
  auto make = [&](const std::string& name, HloOpcode op, const std::string& operand) {
    auto i = std::make_unique<HloInstruction>(name, op, *ParseShape("f32[4]{0}"));
    i->AppendOperand(e->FindInstruction(operand));
    return i;
  };
  HloInstruction* n2 = e->ReplaceInstructionAt(1, make("n2", HloOpcode::kCopy, "p0"));
  EXPECT_EQ(range[1], n2);
  EXPECT_EQ(e->FindInstruction("a")->operand(0), n2);
  ASSERT_EQ(e->FindInstruction("p0")->users().size(), 1u);
  EXPECT_EQ(e->FindInstruction("p0")->users()[0], n2);
  HloInstruction* a2 = e->ReplaceInstructionAt(2, make("a2", HloOpcode::kNegate, "n2"));
  EXPECT_EQ(e->root(), a2);
  ASSERT_EQ(n2->users().size(), 1u);
  EXPECT_EQ(n2->users()[0], a2);
  EXPECT_EQ(e->instruction_count(), 3);
  EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);
}

TEST(HloParserTest, TypedAttributesParsedOnce) {
  auto m = ParseTestModule(R"(HloModule m
ENTRY e {
  x = f32[1,8,8,3] parameter(0)
  k = f32[3,3,3,16] parameter(1)
  c = f32[1,8,8,16] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  p = f32[4,4] parameter(2)
  q = (f32[4,4], f32[2]) custom-call(p, p), custom_call_target="t", operand_layout_constraints={ f32[4,4]{0,1}, f32[4,4] }, output_to_operand_aliasing={{0}: (1, {}), {1}: (0, {})}
  ROOT t = (f32[1,8,8,16], (f32[4,4], f32[2])) tuple(c, q)
})");
  ASSERT_NE(m, nullptr);
  const HloInstruction* c = m->entry()->FindInstruction("c");
  ASSERT_TRUE(c->attributes().rare().dim_labels.has_value());
  EXPECT_EQ(c->attributes().rare().dim_labels->input, "b01f");
  EXPECT_EQ(c->attributes().rare().dim_labels->kernel, "01io");
  EXPECT_EQ(c->attributes().rare().dim_labels->output, "b01f");
  const HloInstruction* q = m->entry()->FindInstruction("q");
  const auto& shapes = q->attributes().rare().operand_layout_constraints;
  ASSERT_TRUE(shapes.has_value());
  ASSERT_EQ(shapes->size(), 2u);
  EXPECT_EQ((*shapes)[0].ToString(), "f32[4,4]{0,1}");
  EXPECT_EQ((*shapes)[1].ToString(), "f32[4,4]{1,0}");  // the default filled in
  const auto& aliases = q->attributes().rare().output_to_operand_aliasing;
  ASSERT_TRUE(aliases.has_value());
  ASSERT_EQ(aliases->size(), 2u);
  EXPECT_EQ((*aliases)[0].output_index, std::vector<int64_t>{0});
  EXPECT_EQ((*aliases)[0].operand, 1);
  EXPECT_TRUE((*aliases)[0].operand_index.empty());
  EXPECT_EQ((*aliases)[1].operand, 0);
  // They print as written.
  EXPECT_THAT(m->ToString(),
              HasSubstr("operand_layout_constraints={ f32[4,4]{0,1}, f32[4,4] }, "
                        "output_to_operand_aliasing={{0}: (1, {}), {1}: (0, {})}"));
  EXPECT_THAT(m->ToString(), HasSubstr("dim_labels=b01f_01io->b01f"));
}

TEST(HloParserTest, TypedAttributeErrorsArePositioned) {
  EXPECT_THAT(ParseError(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(p), operand_layout_constraints={f32[4]{0}, f32[4}
})"),
              HasSubstr("t.hlo:4:79: error: expected ',' or ']' between dimensions, found '}'"));
  EXPECT_THAT(ParseError(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(p), operand_layout_constraints=f32[4]
})"),
              HasSubstr("t.hlo:4:62: error: expected '{' to open the list of shapes"));
  EXPECT_THAT(ParseError(R"(HloModule m
ENTRY e {
  x = f32[1,8,8,3] parameter(0)
  k = f32[3,3,3,16] parameter(1)
  ROOT c = f32[1,8,8,16] convolution(x, k), dim_labels=b01f01io->b01f
})"),
              HasSubstr("t.hlo:5:45: error: dim_labels needs input_kernel->output, "
                        "like b01f_01io->b01f, not 'b01f01io->b01f'"));
  EXPECT_THAT(ParseError(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(p), output_to_operand_aliasing={{}: (x, {})}
})"),
              HasSubstr("t.hlo:4:35: error: output_to_operand_aliasing: expected "
                        "an operand number"));
}

// A float is converted to the constant's type before its range is
// checked, as XLA does: the masks of attention layers write f32's largest
// value as XLA prints it.
TEST(HloParserTest, ConstantsConvertToTheirTypeBeforeTheRangeCheck) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(HloModule m
ENTRY e {
  a = f32[2] constant({-3.40282347e+38, 3.4028235e+38})
  b = bf16[] constant(3.39e+38)
  ROOT c = f16[] constant(65519)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_THAT(m->entry()->FindInstruction("a")->literal_value()->floats(),
              ::testing::ElementsAre(-FLT_MAX, FLT_MAX));
  EXPECT_THAT(m->entry()->root()->literal_value()->floats(), ::testing::ElementsAre(65504));
  EXPECT_THAT(m->ToString(), HasSubstr("constant({-3.40282347e+38, 3.4028235e+38})"));
  EXPECT_THAT(ParseError("HloModule m\nENTRY e {\n  ROOT c = f16[2] constant({1, 65520})\n}\n"),
              HasSubstr("t.hlo:3:32: error: in the literal of f16[2]{0}: value 65520 is out of "
                        "range for f16 (largest finite: 65504)"));
}

// NaN payloads print back as written, and the printed module reads back to
// the same bits: parse, print, parse is a fixed point.
TEST(HloParserTest, NanPayloadsRoundTripBitForBit) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(HloModule m
ENTRY e {
  a = f32[3] constant({nan(0x123), -nan(0x1), nan})
  b = bf16[2] constant({nan(0x3f), -nan(0x3f)})
  c = f8e5m2[] constant(-nan(0x1))
  d = c64[] constant((nan(0x5), -nan))
  ROOT t = (f32[3], bf16[2], f8e5m2[], c64[]) tuple(a, b, c, d)
})");
  ASSERT_NE(m, nullptr);
  std::string text = m->ToString();
  EXPECT_THAT(text, HasSubstr("constant({nan(0x123), -nan(0x1), nan})"));
  std::unique_ptr<HloModule> again = ParseTestModule(text);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->ToString(), text);
  for (const char* name : {"a", "b", "c", "d"}) {
    const HloInstruction* x = m->entry()->FindInstruction(name);
    const HloInstruction* y = again->entry()->FindInstruction(name);
    const PrimitiveType type = x->shape().element_type();
    ASSERT_EQ(x->literal_value()->floats().size(), y->literal_value()->floats().size());
    for (size_t k = 0; k < x->literal_value()->floats().size(); ++k) {
      EXPECT_EQ(FloatToBits(x->literal_value()->floats()[k], type),
                FloatToBits(y->literal_value()->floats()[k], type))
          << name << " " << k;
    }
  }
  EXPECT_EQ(FloatToBits(m->entry()->FindInstruction("a")->literal_value()->floats()[0], F32),
            0x7f800123u);
  EXPECT_EQ(FloatToBits(m->entry()->FindInstruction("b")->literal_value()->floats()[1], BF16),
            0xffbfu);
}

// Comments inside a constant's literal are whitespace, a bracket in one
// included; the literal prints back as written and reads the same again.
TEST(HloParserTest, CommentsInsideLiterals) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(HloModule m
ENTRY e {
  a = f32[2,1,1] constant({ { /*i0=0*/ {1} }, { /*i0=1*/ {2} } })
  b = f32[1] constant({7 /* ) */})
  ROOT c = /*note*/f32[1]{0} constant({5 /*x*/})
})");
  ASSERT_NE(m, nullptr);
  EXPECT_THAT(m->entry()->FindInstruction("a")->literal_value()->floats(),
              ::testing::ElementsAre(1, 2));
  EXPECT_THAT(m->entry()->FindInstruction("b")->literal_value()->floats(),
              ::testing::ElementsAre(7));
  EXPECT_THAT(m->entry()->root()->literal_value()->floats(), ::testing::ElementsAre(5));
  std::string text = m->ToString();
  EXPECT_THAT(text, HasSubstr("constant({5 /*x*/})"));
  std::unique_ptr<HloModule> again = ParseTestModule(text);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->ToString(), text);
}

// custom-call's literal= is typed: read by the literal rules against its
// own shape, and printed as XLA prints it, the shape with its layout.
TEST(HloParserTest, CustomCallLiteral) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  a = f32[2] custom-call(x), custom_call_target="foo", literal=s32[2]{0} {1, 2}
  b = f32[2] custom-call(x), custom_call_target="foo", literal=f32[] 42, api_version=API_VERSION_TYPED_FFI
  c = f32[2] custom-call(x), custom_call_target="foo", literal=s32[2]{ 0 } {3,4}
  ROOT d = f32[2] custom-call(x), custom_call_target="foo", literal=f32[2,1]{0,1} { /*i0=0*/ {3.4028235e+38}, {nan(0x1)} }
})");
  ASSERT_NE(m, nullptr);
  const auto& a = m->entry()->FindInstruction("a")->attributes().rare().literal;
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->shape.ToString(), "s32[2]{0}");
  EXPECT_THAT(a->value->ints(), ::testing::ElementsAre(1, 2));
  const auto& b = m->entry()->FindInstruction("b")->attributes().rare().literal;
  ASSERT_TRUE(b.has_value());
  EXPECT_THAT(b->value->floats(), ::testing::ElementsAre(42));
  const auto& d = m->entry()->root()->attributes().rare().literal;
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->value->floats()[0], FLT_MAX);
  EXPECT_EQ(FloatToBits(d->value->floats()[1], F32), 0x7f800001u);
  std::string text = m->ToString();
  EXPECT_THAT(text, HasSubstr("custom_call_target=\"foo\", literal=s32[2]{0} {1, 2}\n"));
  EXPECT_THAT(text, HasSubstr("literal=f32[] 42, api_version=API_VERSION_TYPED_FFI\n"));
  EXPECT_THAT(text, HasSubstr("literal=s32[2]{0} {3,4}\n"));  // the shape as XLA prints it
  std::unique_ptr<HloModule> again = ParseTestModule(text);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->ToString(), text);
}

TEST(HloParserTest, CustomCallLiteralErrorsArePositioned) {
  auto module = [](absl::string_view literal) {
    return absl::StrCat("HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n",
                        "  ROOT c = f32[2] custom-call(x), custom_call_target=\"foo\", literal=",
                        literal, "\n}\n");
  };
  // The value starts at column 69.
  EXPECT_THAT(ParseError(module("u8[2]{0} {1, 256}")),
              HasSubstr("t.hlo:4:82: error: in the literal of u8[2]{0}: value 256 is out of "
                        "range for u8 [0, 255]"));
  EXPECT_THAT(ParseError(module("s32[3]{0} {1, 2}")),
              HasSubstr("t.hlo:4:84: error: in the literal of s32[3]{0}: dim 0 needs 3 "
                        "entries, the literal has 2"));
  // As in XLA, braces right after the dims are the shape's layout: an array
  // is written with its layout, then its values.
  EXPECT_THAT(ParseError(module("s32[2] {1, 2}")),
              HasSubstr("t.hlo:4:76: error: Dimensions size is 1, but minor to major size "
                        "is 2."));
  EXPECT_THAT(ParseError(module("f16[] 65520")),
              HasSubstr("t.hlo:4:75: error: in the literal of f16[]: value 65520 is out of "
                        "range for f16"));
  EXPECT_THAT(ParseError(module("f32[] 1 2")),
              HasSubstr("t.hlo:4:77: error: expected ',' or the end of the line after the "
                        "value of attribute 'literal'"));
  EXPECT_THAT(ParseError(module("f32[]")),
              HasSubstr("t.hlo:5:1: error: in the literal of f32[]: expected a value of "
                        "type f32"));
}

// XLA reads an infeed's data shape from the first element of its shape, the
// tuple (data, token); any other shape is refused where it is written.
TEST(HloParserTest, InfeedShapeIsANonEmptyTuple) {
  auto module = [](absl::string_view infeed) {
    return absl::StrCat("HloModule m\nENTRY e {\n  t = token[] after-all()\n  ", infeed,
                        "\n  ROOT r = token[] after-all()\n}\n");
  };
  std::unique_ptr<HloModule> m = ParseTestModule(module("i = (f32[4], token[]) infeed(t)"));
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);
  EXPECT_EQ(ParseError(module("i = f32[4] infeed(t)")),
            "t.hlo:4:7: error: infeed's shape must be a non-empty tuple (data, token), not "
            "f32[4]\n  i = f32[4] infeed(t)\n      ^");
  EXPECT_THAT(ParseError(module("i = () infeed(t)")),
              HasSubstr("t.hlo:4:7: error: infeed's shape must be a non-empty tuple (data, "
                        "token), not ()"));
  EXPECT_THAT(ParseError(module("i = (f32[4], token[]) tuple(f32[4] infeed(t), t)")),
              HasSubstr("t.hlo:4:38: error: infeed's shape must be a non-empty tuple"));
}

// A custom call's operand_layout_constraints set its operands' layouts: one
// shape per operand, with the operand's dims and element type. Checked
// once the module is read, so operands defined later or written without a
// shape are checked too.
TEST(HloParserTest, OperandLayoutConstraintsFitTheOperands) {
  auto call = [](absl::string_view operands, absl::string_view constraints) {
    return absl::StrCat("HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n",
                        "  ROOT c = f32[4] custom-call(", operands,
                        "), custom_call_target=\"f\", operand_layout_constraints=", constraints,
                        "\n}\n");
  };
  ParseTestModule(call("p, p", "{f32[4]{0}, f32[4]}"));
  EXPECT_EQ(ParseError(call("p", "{f32[4]{0}, f32[4]{0}}")),
            "t.hlo:4:59: error: operand_layout_constraints of 'c' has 2 shapes for 1 operand; "
            "it takes one per operand\n" + std::string(
            "  ROOT c = f32[4] custom-call(p), custom_call_target=\"f\", "
            "operand_layout_constraints={f32[4]{0}, f32[4]{0}}\n") + std::string(58, ' ') + "^");
  EXPECT_THAT(ParseError(call("p, p", "{f32[4]}")),
              HasSubstr("t.hlo:4:62: error: operand_layout_constraints of 'c' has 1 shape for 2 "
                        "operands"));
  EXPECT_THAT(ParseError(call("p, p", "{f32[4]{0}, f32[8]{0}}")),
              HasSubstr("t.hlo:4:101: error: operand_layout_constraints gives f32[8]{0} for "
                        "operand 1 of 'c', which is f32[4]{0}; a constraint sets only the "
                        "layout"));
  EXPECT_THAT(ParseError(call("p", "{s32[4]{0}}")),
              HasSubstr("t.hlo:4:87: error: operand_layout_constraints gives s32[4]{0} for "
                        "operand 0 of 'c', which is f32[4]{0}"));
  EXPECT_THAT(ParseError(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(n), custom_call_target="f", operand_layout_constraints={f32[2]}
  n = negate(p)
})"),
              HasSubstr("t.hlo:4:87: error: operand_layout_constraints gives f32[2]{0} for "
                        "operand 0 of 'c', which is f32[4]{0}"));
  // The async shorthand moves the constraints to the wrapped call.
  EXPECT_THAT(ParseError(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) custom-call-start(a), custom_call_target="f", operand_layout_constraints={f32[2]}
  ROOT d = f32[4] custom-call-done(s)
})"),
              HasSubstr("t.hlo:4:107: error: operand_layout_constraints gives f32[2]{0} for "
                        "operand 0 of 'async_op', which is f32[4]{0}"));
}

// A conditional's branches are true_computation and false_computation, or
// branch_computations: never both.
TEST(HloParserTest, ConditionalNamesItsBranchesOneWay) {
  auto module = [](absl::string_view selector, absl::string_view branches) {
    return absl::StrCat(R"(HloModule m
neg {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}
ENTRY e {
  i = )", selector, R"([] parameter(0)
  a = f32[] parameter(1)
  ROOT r = f32[] conditional(i, a, a), )", branches, "\n}\n");
  };
  for (auto [selector, branches] :
       {std::pair<absl::string_view, absl::string_view>{
            "pred", "true_computation=neg, false_computation=neg"},
        {"s32", "branch_computations={neg, neg}"}}) {
    std::unique_ptr<HloModule> m = ParseTestModule(module(selector, branches));
    ASSERT_NE(m, nullptr);
    EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);
  }
  EXPECT_EQ(ParseError(module("pred", "true_computation=neg, false_computation=neg, "
                                      "branch_computations={neg, neg}")),
            "t.hlo:9:85: error: conditional takes true_computation and false_computation, or "
            "branch_computations, not both ('branch_computations' after 'true_computation')\n"
            "  ROOT r = f32[] conditional(i, a, a), true_computation=neg, "
            "false_computation=neg, branch_computations={neg, neg}\n" +
                std::string(84, ' ') + "^");
  EXPECT_THAT(ParseError(module("s32", "branch_computations={neg, neg}, false_computation=neg")),
              HasSubstr("t.hlo:9:72: error: conditional takes true_computation and "
                        "false_computation, or branch_computations, not both "
                        "('false_computation' after 'branch_computations')"));
}

// Async ops written out: each async-start wraps a computation of its own,
// and an update or done that names a computation or a thread names its
// start's.
TEST(HloParserTest, AsyncUpdateAndDoneContinueTheirStart) {
  auto module = [](absl::string_view body) {
    return absl::StrCat(R"(HloModule m
w {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
}, execution_thread="host"
v {
  a = f32[4] parameter(0)
  ROOT n = f32[4] abs(a)
}, execution_thread="host"
ENTRY e {
  p = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) async-start(p), calls=w, async_execution_thread="host"
)", body, "\n}\n");
  };
  std::unique_ptr<HloModule> m = ParseTestModule(module(
      "  u = ((f32[4]), f32[4], s32[]) async-update(s), calls=w, async_execution_thread=\"host\"\n"
      "  ROOT d = f32[4] async-done(u), calls=w"));
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);
  EXPECT_EQ(ParseError(module(
                "  t = ((f32[4]), f32[4], s32[]) async-start(p), calls=w\n"
                "  ROOT d = f32[4] async-done(s)")),
            "t.hlo:13:49: error: computation 'w' is wrapped by async-start 's' already; each "
            "async-start wraps a computation of its own\n"
            "  t = ((f32[4]), f32[4], s32[]) async-start(p), calls=w\n" +
                std::string(48, ' ') + "^");
  EXPECT_THAT(ParseError(module("  u = ((f32[4]), f32[4], s32[]) async-update(s)\n"
                                "  ROOT d = f32[4] async-done(u), calls=v")),
              HasSubstr("t.hlo:14:34: error: async-done 'd' calls 'v' but its async-start 's' "
                        "wraps 'w'"));
  EXPECT_THAT(ParseError(module("  u = ((f32[4]), f32[4], s32[]) async-update(s), calls=v\n"
                                "  ROOT d = f32[4] async-done(u)")),
              HasSubstr("t.hlo:13:50: error: async-update 'u' calls 'v' but its async-start 's' "
                        "wraps 'w'"));
  EXPECT_THAT(ParseError(module("  ROOT d = f32[4] async-done(s), async_execution_thread=\"main\"")),
              HasSubstr("t.hlo:13:34: error: async-done 'd' runs on thread \"main\" but its "
                        "async-start 's' runs on \"host\""));
  // The shorthand's start runs on "main" unless it says otherwise.
  EXPECT_THAT(ParseError(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  s = ((f32[4], f32[4]), f32[4]) add-start(a, a)
  ROOT d = f32[4] add-done(s), async_execution_thread="host"
})"),
              HasSubstr("t.hlo:5:32: error: async-done 'd' runs on thread \"host\" but its "
                        "async-start 's' runs on \"main\""));
}

// original_value (origin in newer XLA) records where a value came from, one
// leaf per array of the instruction's shape: printed as written, refused
// where its tuple structure is not the shape's or the shape is left out.
TEST(HloParserTest, OriginalValueHasTheShapesStructure) {
  auto module = [](absl::string_view root) {
    return absl::StrCat("HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  i = s32[] "
                        "parameter(1)\n  ", root, "\n}\n");
  };
  const std::string accepted = module(
      "ROOT t = (f32[4], (s32[], f32[4])) tuple(p, (s32[], f32[4]) tuple(i, p)), "
      "original_value={({\"p\"}, ({\"i\" {}}, {}))}");
  std::unique_ptr<HloModule> m = ParseTestModule(accepted);
  ASSERT_NE(m, nullptr);
  EXPECT_THAT(m->ToString(), HasSubstr(", original_value={({\"p\"}, ({\"i\" {}}, {}))}"));
  for (absl::string_view ok : {"original_value={{\"p\" {0} \"call\"}}", "origin={{\"x\"}}",
                               "original_value={[synthetic_call]}"}) {
    EXPECT_NE(ParseTestModule(module(absl::StrCat("ROOT n = f32[4] negate(p), ", ok))), nullptr)
        << ok;
  }
  EXPECT_EQ(ParseError(module("ROOT n = f32[4] negate(p), original_value={({\"a\"}, {\"b\"})}")),
            "t.hlo:5:46: error: original_value has a tuple where the instruction's shape has "
            "f32[4]{0}\n"
            "  ROOT n = f32[4] negate(p), original_value={({\"a\"}, {\"b\"})}\n" +
                std::string(45, ' ') + "^");
  EXPECT_THAT(ParseError(module("ROOT t = (f32[4], f32[4]) tuple(p, p), origin={{\"t\"}}")),
              HasSubstr("t.hlo:5:50: error: origin has an array where the instruction's shape "
                        "has (f32[4]{0}, f32[4]{0})"));
  EXPECT_THAT(ParseError(module("ROOT t = (f32[4], f32[4]) tuple(p, p), "
                                "original_value={({\"a\"})}")),
              HasSubstr("t.hlo:5:64: error: original_value has 1 of 2 elements where the "
                        "instruction's shape has (f32[4]{0}, f32[4]{0})"));
  EXPECT_THAT(ParseError(module("ROOT t = (f32[4], f32[4]) tuple(p, p), "
                                "original_value={({\"a\"}, {\"b\"}, {\"c\"})}")),
              HasSubstr("original_value has more than 2 elements where"));
  EXPECT_THAT(ParseError(module("ROOT t = (f32[4], (s32[], f32[4])) tuple(p, (s32[], f32[4]) "
                                "tuple(i, p)), original_value={({\"p\"}, {\"q\"})}")),
              HasSubstr("original_value has an array where the instruction's shape has "
                        "(s32[], f32[4]{0}) at {1}"));
  EXPECT_THAT(ParseError(module("ROOT n = f32[4] negate(p), original_value={{p}}")),
              HasSubstr("t.hlo:5:47: error: original_value: expected an instruction name in "
                        "quotes"));
  EXPECT_THAT(ParseError(module("ROOT n = negate(p), original_value={{\"n\"}}")),
              HasSubstr("t.hlo:5:23: error: original_value needs the instruction's shape "
                        "written before the opcode: its structure is the shape's"));
}

// result_accuracy is a ResultAccuracy as XLA reads one: a mode by its
// lowercase name, or a tolerance of numbers. It prints back as written.
TEST(HloParserTest, ResultAccuracyIsOneXlaReads) {
  auto module = [](absl::string_view accuracy) {
    return absl::StrCat("HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n",
                        "  ROOT x = f32[4] exponential(p), result_accuracy=", accuracy, "\n}\n");
  };
  for (absl::string_view ok : {"{mode=highest}", "{mode=default}",
                               "{tolerance={atol=1e-5,rtol=0,ulps=1}}", "{tolerance={ulps=2}}",
                               "{tolerance={}}"}) {
    std::unique_ptr<HloModule> m = ParseTestModule(module(ok));
    ASSERT_NE(m, nullptr) << ok;
    EXPECT_THAT(m->ToString(), HasSubstr(absl::StrCat("result_accuracy=", ok)));
  }
  EXPECT_EQ(ParseError(module("{mode=high}")),
            "t.hlo:4:35: error: result_accuracy mode 'high' is not one of default, highest "
            "(spelled in lowercase)\n"
            "  ROOT x = f32[4] exponential(p), result_accuracy={mode=high}\n" +
                std::string(34, ' ') + "^");
  EXPECT_THAT(ParseError(module("{mode=HIGHEST}")),
              HasSubstr("result_accuracy mode 'HIGHEST' is not one of default, highest"));
  EXPECT_THAT(ParseError(module("{tolerance={atol=x}}")),
              HasSubstr("t.hlo:4:35: error: result_accuracy tolerance atol needs a number, "
                        "not 'x'"));
  EXPECT_THAT(ParseError(module("{tolerance={abs=1}}")),
              HasSubstr("result_accuracy tolerance has no field 'abs'; it takes atol, rtol and "
                        "ulps"));
  EXPECT_THAT(ParseError(module("{precision=high}")),
              HasSubstr("result_accuracy takes mode or tolerance, not 'precision'"));
  for (absl::string_view bad : {"high", "{tolerance=1}", "{mode highest}", "{mode=default x}"}) {
    EXPECT_THAT(ParseError(module(bad)),
                HasSubstr(absl::StrCat("result_accuracy needs {mode=...} or "
                                       "{tolerance={atol=...,rtol=...,ulps=...}}, not '",
                                       bad, "'")))
        << bad;
  }
}

// Integer lists allow spaces around numbers and signs, and name the item
// that is not a number.
TEST(HloParserTest, IntegerListAttributes) {
  auto module = [](absl::string_view dims) {
    return absl::StrCat("HloModule m\nENTRY e {\n  p = f32[2,3] parameter(0)\n",
                        "  ROOT t = f32[3,2] transpose(p), dimensions=", dims, "\n}");
  };
  for (absl::string_view ok : {"{1,0}", "{ 1 , 0 }", "{+1,0}"}) {
    std::unique_ptr<HloModule> m = ParseTestModule(module(ok));
    ASSERT_NE(m, nullptr) << ok;
    EXPECT_EQ(*m->entry()->root()->attributes().dimensions,
              (std::vector<int64_t>{1, 0}))
        << ok;
  }
  EXPECT_THAT(ParseError(module("{1,x}")),
              HasSubstr("dimensions: 'x' is not an integer"));
  EXPECT_THAT(ParseError(module("{1,}")), HasSubstr("dimensions: '' is not an integer"));
  EXPECT_THAT(ParseError(module("{1 0}")),
              HasSubstr("dimensions: '1 0' is not an integer"));
  EXPECT_THAT(ParseError(module("1,0")),
              HasSubstr("dimensions needs a list like {0,1}"));
}

}  // namespace
}  // namespace xla_layout
