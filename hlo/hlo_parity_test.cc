// XLA parity, one test per cause: what XLA accepts parses (and verifies),
// what XLA refuses gets a positioned error. Our own modules throughout.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_attributes.h"
#include "hlo/hlo_literal.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_test_util.h"
#include "hlo/hlo_verifier.h"

namespace xla_layout {
namespace {

using ::testing::HasSubstr;

// Parses and verifies; returns the printed module, or the error.
std::string Accept(absl::string_view text, std::vector<std::string>* warnings = nullptr) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo", warnings);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return std::string(m.status().message());
  absl::Status v = VerifyModule(**m);
  EXPECT_TRUE(v.ok()) << v;
  std::string printed = (*m)->ToString();
  // The canonical form re-parses to itself.
  absl::StatusOr<std::unique_ptr<HloModule>> again = ParseHloModule(printed, "again.hlo");
  EXPECT_TRUE(again.ok()) << again.status() << "\n" << printed;
  if (again.ok()) {
    EXPECT_EQ((*again)->ToString(), printed);
  }
  return printed;
}

// The parse or verifier error (empty when the module is accepted).
std::string Refuse(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  if (!m.ok()) return std::string(m.status().message());
  absl::Status v = VerifyModule(**m);
  EXPECT_FALSE(v.ok()) << "accepted:\n" << (*m)->ToString();
  return std::string(v.message());
}

TEST(ParityTest, SameNameInTwoComputationsIsRenamed) {
  std::string out = Accept(R"(HloModule m

inc {
  x = f32[] parameter(0)
  ROOT y = f32[] negate(x)
}

ENTRY e {
  x = f32[] parameter(0)
  ROOT c = f32[] call(x), to_apply=inc
})");
  EXPECT_THAT(out, HasSubstr("%x = f32[] parameter(0)\n  ROOT %y"));
  EXPECT_THAT(out, HasSubstr("%x.1 = f32[] parameter(0)"));
  EXPECT_THAT(out, HasSubstr("call(f32[] %x.1), to_apply=%inc"));
  // A suffix already in use anywhere is skipped.
  out = Accept(R"(HloModule m
f {
  a = f32[] parameter(0)
  ROOT a.1 = f32[] negate(a)
}
ENTRY e {
  a = f32[] parameter(0)
  ROOT c = f32[] call(a), to_apply=f
})");
  EXPECT_THAT(out, HasSubstr("%a.2 = f32[] parameter(0)"));
  // Within one computation a name is still defined once.
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n"
                     "  a = f32[] parameter(1)\n  ROOT t = (f32[], f32[]) tuple(a, a)\n}\n"),
              HasSubstr("t.hlo:4:3: error: instruction 'a' is defined twice in 'e'"));
}

TEST(ParityTest, ModuleWithoutHeaderIsNamedAfterItsEntry) {
  std::string out = Accept(R"(add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
})");
  EXPECT_THAT(out, HasSubstr("HloModule module_main\n"));
}

TEST(ParityTest, OperandLayoutOtherThanDefinitionUsesTheDefinition) {
  std::vector<std::string> warnings;
  std::string out = Accept(R"(HloModule m
ENTRY e {
  p = f32[2,3]{1,0} parameter(0)
  ROOT n = f32[2,3]{1,0} negate(f32[2,3]{0,1} p)
})", &warnings);
  EXPECT_THAT(out, HasSubstr("negate(f32[2,3]{1,0} %p)"));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("t.hlo:4:47: warning: operand 'p' is written with "
                                     "layout {0,1} but its definition has {1,0}"));
  // Dimensions that differ are still an error.
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  p = f32[2,3] parameter(0)\n"
                     "  ROOT n = f32[2,3] negate(f32[3,2] p)\n}\n"),
              HasSubstr("t.hlo:4:37: error: operand 'p' is written as f32[3,2]"));
}

TEST(ParityTest, ExecutionThreadAfterAComputation) {
  std::string out = Accept(R"(HloModule m
host {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}, execution_thread="host"

ENTRY e {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=host
})");
  EXPECT_THAT(out, HasSubstr("}, execution_thread=\"host\"\n"));
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}, thread=1\n"),
              HasSubstr("t.hlo:4:4: error: expected execution_thread=\"...\" after "
                        "computation 'e'"));
}

// A thread name is a quoted string with C escapes, as XLA's lexer reads
// it: the bytes they stand for, printed back escaped (found by fuzzing: a
// name with control bytes came back from the proto as its escaped text).
TEST(ParityTest, ExecutionThreadNamesTakeEscapes) {
  const char* text = R"(HloModule m
host {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}, execution_thread="h\"o\\s\001\000t"

ENTRY e {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=host
})";
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->FindComputation("host")->execution_thread(),
            std::string("h\"o\\s\001\000t", 8));
  const std::string out = (*m)->ToString();
  EXPECT_THAT(out, HasSubstr(R"(}, execution_thread="h\"o\\s\001\000t")"));
  absl::StatusOr<std::unique_ptr<HloModule>> again = ParseHloModule(out, "printed.hlo");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->ToString(), out);
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}, "
                     "execution_thread=\"a\\q\"\n"),
              HasSubstr("t.hlo:4:21: error: execution_thread has a bad escape sequence"));
}

TEST(ParityTest, NestedInlineOperands) {
  std::string out = Accept(R"(HloModule m
ENTRY e {
  ROOT r = f32[4] add(f32[4] parameter(0), f32[4] multiply(f32[4] parameter(1), f32[4] parameter(2)))
})");
  EXPECT_THAT(out, HasSubstr("%parameter.anon = f32[4]{0} parameter(0)"));
  EXPECT_THAT(out, HasSubstr("%parameter.anon.1 = f32[4]{0} parameter(1)"));
  EXPECT_THAT(out, HasSubstr("%parameter.anon.2 = f32[4]{0} parameter(2)"));
  EXPECT_THAT(out, HasSubstr("%multiply.anon = f32[4]{0} multiply(f32[4]{0} "
                             "%parameter.anon.1, f32[4]{0} %parameter.anon.2)"));
  EXPECT_THAT(out, HasSubstr("ROOT %r = f32[4]{0} add(f32[4]{0} %parameter.anon, "
                             "f32[4]{0} %multiply.anon)"));
  // Shapes of inline operands may be left out where XLA infers them, and a
  // generated name steps around the names the text writes.
  out = Accept(R"(HloModule m
ENTRY e {
  negate.anon = f32[2] parameter(0)
  ROOT r = f32[2] add(negate(negate.anon), negate.anon)
})");
  EXPECT_THAT(out, HasSubstr("%negate.anon.1 = f32[2]{0} negate(f32[2]{0} %negate.anon)"));
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  ROOT r = f32[2] add(f32[2] frob(), f32[2] "
                     "parameter(0))\n}\n"),
              HasSubstr("t.hlo:3:30: error: unknown opcode 'frob' in an inline operand"));
}

TEST(ParityTest, EveryOpcodeOfCurrentXla) {
  Accept(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = s32[4] parameter(1)
  c = f32[4] acos(a)
  d = f32[4] atanh(c)
  h = f32[4] sinh(d)
  k = f32[4] cosh(h)
  m = s32[4] mulhi(b, b)
  ROOT t = (f32[4], s32[4]) tuple(k, m)
})");
  Accept(R"(HloModule m
ENTRY e {
  lhs = f32[8,16] parameter(0)
  rhs = f32[2,16,4] parameter(1)
  groups = s32[2] parameter(2)
  ROOT r = f32[8,4] ragged-dot(lhs, rhs, groups), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})");
}

// The bool form answers as the checked form does, on a common name, an
// opcode's own, another opcode's, and an opcode without a table.
TEST(ParityTest, TakesAttributeAgreesWithCheckAttributeName) {
  const std::vector<std::pair<HloOpcode, std::string>> cases = {
      {HloOpcode::kBitcast, "metadata"},   {HloOpcode::kBitcast, "dimensions"},
      {HloOpcode::kTranspose, "dimensions"}, {HloOpcode::kTranspose, "slice"},
      {HloOpcode::kNegate, "frobnicate"},  {HloOpcode::kNegate, "sharding"}};
  int taken = 0;
  for (const auto& [opcode, name] : cases) {
    SCOPED_TRACE(name);
    EXPECT_EQ(TakesAttribute(opcode, name), CheckAttributeName(opcode, name).ok());
    taken += TakesAttribute(opcode, name);
  }
  EXPECT_EQ(taken, 3);
}

TEST(ParityTest, AttributesAreTypedPerOpcode) {
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n"
                     "  ROOT n = f32[2] negate(a), frobnicate={1,2}\n}\n"),
              HasSubstr("t.hlo:4:30: error: unknown attribute 'frobnicate' for negate (it "
                        "takes only the attributes every instruction takes)"));
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n"
                     "  ROOT t = f32[3,2] transpose(a), dimensions={1,0}, slice={[0:1]}\n}\n"),
              HasSubstr("unknown attribute 'slice' for transpose (it takes dimensions, and "
                        "those every instruction takes)"));
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n"
                     "  ROOT n = f32[2] negate(a), metadata={op_name=\"x\"}, "
                     "metadata={op_name=\"y\"}\n}\n"),
              HasSubstr("attribute 'metadata' is given twice"));
  // Harmless XLA attributes stay verbatim.
  std::string out = Accept(R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  ROOT n = f32[2] exponential(a), metadata={op_type="Exp" op_name="e"}, frontend_attributes={_xla="1"}, backend_config={"k":1}, sharding={replicated}, result_accuracy={mode=highest}
})");
  EXPECT_THAT(out, HasSubstr("metadata={op_type=\"Exp\" op_name=\"e\"}, "
                             "frontend_attributes={_xla=\"1\"}, backend_config={\"k\":1}, "
                             "sharding={replicated}, result_accuracy={mode=highest}"));
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n"
                     "  ROOT n = f32[2] exponential(a), result_accuracy=high\n}\n"),
              HasSubstr("result_accuracy needs {mode=...}"));
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n"
                     "  ROOT c = f32[2] custom-call(a), custom_call_target=\"f\", "
                     "api_version=API_VERSION_UNSPECIFIED\n}\n"),
              HasSubstr("api_version 'API_VERSION_UNSPECIFIED' is not one of"));
  // control-predecessors name instructions of the same computation.
  Accept(R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] negate(a)
  ROOT c = f32[2] abs(a), control-predecessors={b}
})");
  EXPECT_THAT(Refuse(R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  ROOT c = f32[2] abs(a), control-predecessors={nope}
})"),
              HasSubstr("t.hlo:4:27: error: control-predecessors of 'c' names 'nope', "
                        "which is not in 'e'"));
  // Conditional branch lists follow the selector's type.
  EXPECT_THAT(Refuse(R"(HloModule m
b0 {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}
ENTRY e {
  i = s32[] parameter(0)
  a = f32[] parameter(1)
  ROOT r = f32[] conditional(i, a), true_computation=b0, false_computation=b0
})"),
              HasSubstr("conditional needs one operand per branch after the selector"));
}

TEST(ParityTest, ConstantsAreParsed) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(HloModule m
ENTRY e {
  a = f32[2,2] constant({ { 1, 2 }, { 3, 4 } })
  b = bf16[] constant(-0.5)
  c = pred[3] constant({true, false, true})
  ROOT t = (f32[2,2], bf16[], pred[3]) tuple(a, b, c)
})", "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  const HloLiteral* a = (*m)->entry()->FindInstruction("a")->literal_value();
  ASSERT_NE(a, nullptr);
  EXPECT_THAT(a->floats(), ::testing::ElementsAre(1, 2, 3, 4));
  EXPECT_THAT((*m)->entry()->FindInstruction("c")->literal_value()->ints(),
              ::testing::ElementsAre(1, 0, 1));
  // The text prints back as written.
  EXPECT_THAT((*m)->ToString(), HasSubstr("constant({ { 1, 2 }, { 3, 4 } })"));
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  ROOT c = f16[] constant(-65520)\n}\n"),
              HasSubstr("t.hlo:3:27: error: in the literal of f16[]: value -65520 is out of "
                        "range for f16 (largest finite: 65504)"));
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  ROOT c = f32[3] constant({1,2})\n}\n"),
              HasSubstr("t.hlo:3:32: error: in the literal of f32[3]{0}: dim 0 needs 3 "
                        "entries, the literal has 2"));
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  ROOT c = f32[] constant(nan(0x800000))\n}\n"),
              HasSubstr("NaN payload 0x800000 does not fit the 23 mantissa bits of f32"));
}

TEST(ParityTest, InputOutputAliasAndBufferDonorAreChecked) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(HloModule m, input_output_alias={ {0}: (1, {}, must-alias), {1}: (0, {1}) }, buffer_donor={ (0, {0}) }
ENTRY e {
  p0 = (f32[2], s32[3]) parameter(0)
  p1 = f32[4] parameter(1)
  a = s32[3] get-tuple-element(p0), index=1
  ROOT t = (f32[4], s32[3]) tuple(p1, a)
})", "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ((*m)->input_output_aliases().size(), 2u);
  EXPECT_TRUE((*m)->input_output_aliases()[0].must_alias);
  EXPECT_EQ((*m)->input_output_aliases()[1].parameter_index, std::vector<int64_t>{1});
  ASSERT_EQ((*m)->buffer_donors().size(), 1u);
  EXPECT_TRUE(VerifyModule(**m).ok());
  // The header prints back as written.
  EXPECT_THAT((*m)->ToString(), HasSubstr("buffer_donor={ (0, {0}) }"));
  constexpr char module[] = R"(HloModule m, %s
ENTRY e {
  p0 = f32[2] parameter(0)
  p1 = f32[4] parameter(1)
  ROOT t = (f32[4], f32[2]) tuple(p1, p0)
})";
  EXPECT_THAT(Refuse(absl::StrFormat(module, "input_output_alias={ {0}: (2, {}) }")),
              HasSubstr("t.hlo:1:14: error: input_output_alias names parameter 2; the entry "
                        "has 2"));
  EXPECT_THAT(Refuse(absl::StrFormat(module, "input_output_alias={ {0}: (0, {}) }")),
              HasSubstr("input_output_alias makes output {0} (f32[4]{0}) share parameter 0 {} "
                        "(f32[2]{0})"));
  EXPECT_THAT(Refuse(absl::StrFormat(module, "input_output_alias={ {5}: (0, {}) }")),
              HasSubstr("input_output_alias names output {5} of the result"));
  EXPECT_THAT(Refuse(absl::StrFormat(module, "input_output_alias={ {0}: (1, {0}) }")),
              HasSubstr("names index {0} of parameter 1, which is f32[4]{0}"));
  EXPECT_THAT(Refuse(absl::StrFormat(module, "buffer_donor={ (0, {}), (0, {}) }")),
              HasSubstr("buffer_donor names parameter 0 {}, which is already aliased or "
                        "donated"));
  EXPECT_THAT(Refuse(absl::StrFormat(module, "input_output_alias={ {0}: (1, {}, maybe) }")),
              HasSubstr("input_output_alias: expected may-alias or must-alias"));
}

TEST(ParityTest, AsyncShorthandWrapsTheOp) {
  constexpr absl::string_view kAdd = R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  s = ((f32[4], f32[4]), f32[4]) add-start(a, b)
  u = ((f32[4], f32[4]), f32[4]) add-update(s)
  ROOT d = f32[4] add-done(u)
})";
  // The IR has the computation XLA's parser makes; the print is the
  // shorthand again (hlo_forms_test).
  std::unique_ptr<HloModule> m = ParseTestModule(kAdd);
  ASSERT_NE(m, nullptr);
  HloComputation* wrapped = m->FindComputation("async_wrapped");
  ASSERT_NE(wrapped, nullptr);
  EXPECT_EQ(wrapped->ToString(),
            "%async_wrapped (async_param: f32[4]{0}, async_param.1: f32[4]{0}) -> f32[4]{0} {\n"
            "  %async_param = f32[4]{0} parameter(0)\n"
            "  %async_param.1 = f32[4]{0} parameter(1)\n"
            "  ROOT %async_op = f32[4]{0} add(f32[4]{0} %async_param, f32[4]{0} %async_param.1)\n"
            "}\n");
  const HloInstruction* s = m->entry()->FindInstruction("s");
  EXPECT_EQ(s->opcode(), HloOpcode::kAsyncStart);
  EXPECT_EQ(s->called_computation("calls"), wrapped);
  EXPECT_EQ(m->entry()->root()->opcode(), HloOpcode::kAsyncDone);
  EXPECT_THAT(Accept(kAdd), HasSubstr("%s = ((f32[4]{0}, f32[4]{0}), f32[4]{0}) add-start("
                                      "f32[4]{0} %a, f32[4]{0} %b)"));
  // A custom call keeps its attributes, on the wrapped op.
  m = ParseTestModule(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) custom-call-start(a), custom_call_target="foo", async_execution_thread="host"
  ROOT d = f32[4] custom-call-done(s)
})");
  ASSERT_NE(m, nullptr);
  wrapped = m->FindComputation("async_wrapped");
  ASSERT_NE(wrapped, nullptr);
  EXPECT_EQ(wrapped->root()->ToString(),
            "%async_op = f32[4]{0} custom-call(f32[4]{0} %async_param), custom_call_target=\"foo\"");
  ASSERT_EQ(m->entry()->FindInstruction("s")->raw_attributes().size(), 2u);
  EXPECT_EQ(m->entry()->FindInstruction("s")->raw_attributes()[1].name, "async_execution_thread");
  // A done must continue a start of the same op, and the state has its form.
  EXPECT_THAT(Refuse(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  s = ((f32[4], f32[4]), f32[4]) add-start(a, a)
  ROOT d = f32[4] multiply-done(s)
})"),
              HasSubstr("t.hlo:5:19: error: async-done of multiply needs one operand: the "
                        "multiply-start or -update it continues"));
  EXPECT_THAT(Refuse(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  s = f32[4] add-start(a, a)
  ROOT d = f32[4] add-done(s)
})"),
              HasSubstr("add-start needs the shape ((operands...), results, context...)"));
  EXPECT_THAT(Refuse(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  s = ((f32[4], f32[4]), f32[4]) add-start(a, a)
  ROOT d = f32[2] add-done(s)
})"),
              HasSubstr("is written f32[2]{0} but its operands make it f32[4]"));
}

TEST(ParityTest, VerifierErrorsArePositioned) {
  const char* text = "HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n"
                     "  y = f32[3] parameter(1)\n  ROOT z = f32[2] add(x, y)\n}\n";
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  ASSERT_TRUE(m.ok());
  EXPECT_THAT(std::string(VerifyModule(**m).message()),
              HasSubstr("t.hlo:5:8: error: verifier: computation 'e', instruction 'z'"));
  SourceText source(text, "t.hlo");
  VerifierOptions options;
  options.source = &source;
  EXPECT_THAT(std::string(VerifyModule(**m, options).message()),
              HasSubstr("add(x, y)\n       ^"));
}

TEST(ParityTest, WrittenSignatureMustMatchTheBody) {
  EXPECT_THAT(Refuse(R"(HloModule m
ENTRY e (a: s32[7]) -> pred[] {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
})"),
              HasSubstr("t.hlo:2:7: error: the signature of computation 'e' does not "
                        "match its body: parameter 0 is written s32[7], but 'a' is "
                        "f32[2]{0}"));
  EXPECT_THAT(Refuse(R"(HloModule m
ENTRY e (a: f32[2]) -> pred[] {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
})"),
              HasSubstr("the result is written pred[], but the root 'n' is f32[2]{0}"));
  EXPECT_THAT(Refuse(R"(HloModule m
ENTRY e (a: f32[2], b: f32[2]) -> f32[2] {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
})"),
              HasSubstr("it lists 2 parameters, the body has 1"));
  // Layouts may differ (a pass changes them; the printer writes the new ones).
  Accept(R"(HloModule m
ENTRY e (a: f32[2,3]{0,1}) -> f32[2,3]{0,1} {
  a = f32[2,3]{1,0} parameter(0)
  ROOT n = f32[2,3]{1,0} negate(a)
})");
}

TEST(ParityTest, CyclesAreRefused) {
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  ROOT y = f32[] negate(y)\n}\n"),
              HasSubstr("t.hlo:3:8: error: verifier: computation 'e', instruction 'y': "
                        "depends on itself (y <- y)"));
  EXPECT_THAT(Refuse(R"(HloModule m
ENTRY e {
  x = f32[] parameter(0)
  y = f32[] add(x, z)
  z = f32[] add(x, y)
  ROOT r = f32[] negate(z)
})"),
              HasSubstr("t.hlo:4:3: error: verifier: computation 'e', instruction 'y': "
                        "depends on itself (y <- z <- y)"));
}

TEST(ParityTest, CallersAndCalleesAgree) {
  // The issue's case: f32[3,5] passed to a fusion parameter of f32[2,2,2].
  EXPECT_THAT(Refuse(R"(HloModule m
fused {
  p = f32[2,2,2] parameter(0)
  ROOT n = f32[2,2,2] negate(p)
}
ENTRY e {
  a = f32[3,5] parameter(0)
  ROOT f = f32[3,5] fusion(a), kind=kLoop, calls=fused
})"),
              HasSubstr("t.hlo:8:8: error: verifier: computation 'e', instruction 'f': "
                        "passes f32[3,5]{1,0} as parameter 0 of 'fused', which takes "
                        "f32[2,2,2]{2,1,0}"));
  EXPECT_THAT(Refuse(R"(HloModule m
f {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
ENTRY e {
  a = f32[2] parameter(0)
  ROOT c = f32[2] call(a, a), to_apply=f
})"),
              HasSubstr("passes 2 values to 'f', which takes 1"));
  EXPECT_THAT(Refuse(R"(HloModule m
f {
  p = f32[2] parameter(0)
  ROOT n = s32[2] convert(p)
}
ENTRY e {
  a = f32[2] parameter(0)
  ROOT c = f32[2] call(a), to_apply=f
})"),
              HasSubstr("expects f32[2]{0} from 'f', which returns s32[2]{0}"));
  // while: the condition must return pred[].
  EXPECT_THAT(Refuse(R"(HloModule m
body {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}
cond {
  p = f32[] parameter(0)
  ROOT c = s32[] constant(1)
}
ENTRY e {
  a = f32[] parameter(0)
  ROOT w = f32[] while(a), body=body, condition=cond
})"),
              HasSubstr("expects pred[] from 'cond', which returns s32[]"));
  // reduce: the reducer's parameter types follow the init values.
  EXPECT_THAT(Refuse(R"(HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
})"),
              HasSubstr("passes f32[] as parameter 0 of 'add', which takes s32[]"));
  // conditional: branches take their operand and return the result.
  EXPECT_THAT(Refuse(R"(HloModule m
t {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
f {
  p = f32[3] parameter(0)
  ROOT n = f32[2] slice(p), slice={[0:2]}
}
ENTRY e {
  c = pred[] parameter(0)
  a = f32[2] parameter(1)
  ROOT r = f32[2] conditional(c, a, a), true_computation=t, false_computation=f
})"),
              HasSubstr("passes f32[2]{0} as parameter 0 of 'f', which takes f32[3]{0}"));
  // sort: a comparator of 2 scalars per operand returning pred[].
  EXPECT_THAT(Refuse(R"(HloModule m
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT l = f32[] add(a, b)
}
ENTRY e {
  p = f32[8] parameter(0)
  ROOT s = f32[8] sort(p), dimensions={0}, to_apply=less
})"),
              HasSubstr("expects pred[] from 'less', which returns f32[]"));
}

TEST(ParityTest, SizesThatOverflowInt64AreRefused) {
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  ROOT p = f32[9223372036854775807] "
                     "parameter(0)\n}\n"),
              HasSubstr("t.hlo:3:12: error: the byte size of f32[9223372036854775807] "
                        "overflows int64"));
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  ROOT p = f32[1000000000000,1000000] "
                     "parameter(0)\n}\n"),
              HasSubstr("the byte size of f32[1000000000000,1000000] overflows int64"));
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  ROOT p = f32[3000000000,3000000000]{1,0:T(8,128)} "
                     "parameter(0)\n}\n"),
              HasSubstr("overflows int64"));
  EXPECT_THAT(Refuse("HloModule m\nENTRY e {\n  ROOT p = f32[9223372036854775807,2] "
                     "parameter(0)\n}\n"),
              HasSubstr("element count of f32[9223372036854775807,2] overflows int64"));
  // The largest size that fits (2^63 - 8 bits) is fine: nothing is allocated.
  Accept("HloModule m\nENTRY e {\n  ROOT p = u8[1152921504606846975] parameter(0)\n}\n");
}

TEST(ParityTest, ShapesLeftOutAreInferred) {
  std::string out = Accept(R"(HloModule m
body {
  t = (s32[], f32[4,8]) parameter(0)
  i = get-tuple-element(t), index=0
  one = s32[] constant(1)
  j = add(i, one)
  x = get-tuple-element(t), index=1
  ROOT r = tuple(j, x)
}
cond {
  t = (s32[], f32[4,8]) parameter(0)
  i = get-tuple-element(t), index=0
  n = s32[] constant(3)
  ROOT c = compare(i, n), direction=LT
}
yes {
  p = f32[8,4] parameter(0)
  ROOT n = negate(p)
}
no {
  p = f32[8,4] parameter(0)
  ROOT a = abs(p)
}
ENTRY e {
  a = f32[4,8] parameter(0)
  b = f32[8,16] parameter(1)
  flag = pred[] parameter(2)
  d = dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = transpose(a), dimensions={1,0}
  zero = s32[] constant(0)
  init = tuple(zero, a)
  w = while(init), body=body, condition=cond
  k = conditional(flag, t, t), true_computation=yes, false_computation=no
  ROOT out = tuple(d, w, k)
})");
  EXPECT_THAT(out, HasSubstr("%d = f32[4,16]{1,0} dot("));
  EXPECT_THAT(out, HasSubstr("%t.2 = f32[8,4]{1,0} transpose("));  // renamed: t is taken
  EXPECT_THAT(out, HasSubstr("%init = (s32[], f32[4,8]{1,0}) tuple("));
  EXPECT_THAT(out, HasSubstr("%w = (s32[], f32[4,8]{1,0}) while("));
  EXPECT_THAT(out, HasSubstr("%k = f32[8,4]{1,0} conditional("));
  EXPECT_THAT(out, HasSubstr("%i = s32[] get-tuple-element("));
  EXPECT_THAT(out, HasSubstr("%c = pred[] compare("));
  EXPECT_THAT(out, HasSubstr("ROOT %out = (f32[4,16]{1,0}, (s32[], f32[4,8]{1,0}), "
                             "f32[8,4]{1,0}) tuple("));
  // Batched dot: batch dims first, then lhs and rhs free dims.
  out = Accept(R"(HloModule m
ENTRY e {
  a = f32[2,3,5] parameter(0)
  b = f32[2,5,7] parameter(1)
  ROOT d = dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
})");
  EXPECT_THAT(out, HasSubstr("ROOT %d = f32[2,3,7]{2,1,0} dot("));
  // A written operand shape is checked once its definition is inferred.
  EXPECT_THAT(Refuse(R"(HloModule m
ENTRY e {
  a = f32[4,8] parameter(0)
  t = transpose(a), dimensions={1,0}
  ROOT n = f32[4,8] negate(f32[4,8] t)
})"),
              HasSubstr("t.hlo:5:37: error: operand 't' is written as f32[4,8] but its "
                        "shape is f32[8,4]{1,0}"));
}

// Each op's written shape against what its operands make it.
TEST(ParityTest, VerifierInfersShapes) {
  struct Case {
    const char* body;  // the entry's instructions after p (f32[4,8]) and q (f32[8,6])
    const char* error;
  };
  const Case cases[] = {
      {"ROOT r = f32[4,8] transpose(p), dimensions={1,0}",
       "is written f32[4,8]{1,0} but its operands make it f32[8,4]"},
      {"ROOT r = f32[5,7] reshape(p)", "reshape of 32 elements"},
      {"ROOT r = f32[4,7] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
       "its operands make it f32[4,6]"},
      {"ROOT r = f32[4,4] dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={1}",
       ""},
      {"ROOT r = f32[4,8] dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
       "dot contracts lhs dim 1 (8) with rhs dim 0 (4)"},
      {"ROOT r = f32[2,9] slice(p), slice={[0:2], [0:9]}", "slice [0:9:1] is out of dim 1"},
      {"ROOT r = f32[2,4] slice(p), slice={[0:4:2], [0:8:2]}", ""},
      {"ROOT r = f32[4,8,3] broadcast(p), dimensions={0,2}",
       "broadcast maps operand dim 1 (8) to result dim 2 (3)"},
      {"z = f32[] constant(0)\n  ROOT r = f32[8] reduce(p, z), dimensions={0}, to_apply=add",
       ""},
      {"z = f32[] constant(0)\n  ROOT r = f32[4] reduce(p, z), dimensions={0}, to_apply=add",
       "its operands make it f32[8]"},
      {"ROOT r = f32[4,17] concatenate(p, p), dimensions={1}", "its operands make it f32[4,16]"},
      {"ROOT r = f32[8,6] concatenate(p, q), dimensions={0}", "only dim 0 may differ"},
      {"z = f32[] constant(0)\n  ROOT r = f32[7,18] pad(p, z), padding=1_2x1_2_1", ""},
      {"z = f32[] constant(0)\n  ROOT r = f32[7,17] pad(p, z), padding=1_2x1_2_1",
       "its operands make it f32[7,18]"},
      {"ROOT r = f32[4,8] iota(), iota_dimension=2", "iota_dimension 2 is not a dim of"},
      {"ROOT r = f32[16,2] bitcast(p)", ""},
      {"ROOT r = f32[16,3] bitcast(p)", "bitcast of 128 bytes"},
      {"i = s32[] constant(1)\n  ROOT r = f32[2,8] dynamic-slice(p, i, i), dynamic_slice_sizes={2,8}",
       ""},
      {"i = s32[] constant(1)\n  ROOT r = f32[2,9] dynamic-slice(p, i, i), dynamic_slice_sizes={2,9}",
       "dynamic_slice_sizes [2,9] do not fit"},
      {"c = pred[4,8] compare(p, p), direction=LT\n  ROOT r = f32[4,8] select(c, p, p)", ""},
      {"ROOT r = f32[4,8] compare(p, p), direction=LT", "its operands make it pred[4,8]"},
      {"ROOT r = s32[8,4] convert(p)", "convert has operand 0 of shape f32[4,8]{1,0} but result s32[8,4]"},
      {"t = (f32[4,8], f32[8,6]) tuple(p, q)\n  ROOT r = f32[4,8] get-tuple-element(t), index=1",
       "get-tuple-element of f32[8,6]{1,0} cannot be f32[4,8]{1,0}"},
  };
  for (const Case& c : cases) {
    std::string text = absl::StrCat(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4,8] parameter(0)
  q = f32[8,6] parameter(1)
  )", c.body, "\n}\n");
    SCOPED_TRACE(c.body);
    if (*c.error == '\0') {
      Accept(text);
    } else {
      EXPECT_THAT(Refuse(text), HasSubstr(c.error));
    }
  }
}

TEST(ParityTest, VerifierInfersConvolutionGatherAndScatter) {
  constexpr char conv[] = R"(HloModule m
ENTRY e {
  x = f32[1,8,8,3] parameter(0)
  k = f32[3,3,3,16] parameter(1)
  ROOT c = f32[1,%d,%d,16] convolution(x, k), window={size=3x3 stride=%s pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})";
  Accept(absl::StrFormat(conv, 8, 8, "1x1"));
  Accept(absl::StrFormat(conv, 4, 4, "2x2"));
  EXPECT_THAT(Refuse(absl::StrFormat(conv, 8, 8, "2x2")),
              HasSubstr("its operands make it f32[1,4,4,16]"));
  // Grouped (depthwise) convolution: input features = kernel's i x groups.
  Accept(R"(HloModule m
ENTRY e {
  x = f32[2,32,10,10] parameter(0)
  k = f32[32,1,3,3] parameter(1)
  ROOT c = f32[2,32,8,8] convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01, feature_group_count=32
})");
  EXPECT_THAT(Refuse(R"(HloModule m
ENTRY e {
  x = f32[2,32,10,10] parameter(0)
  k = f32[32,2,3,3] parameter(1)
  ROOT c = f32[2,32,8,8] convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01, feature_group_count=32
})"),
              HasSubstr("the input has 32 features; the kernel takes 2 x 32 groups"));
  // Gather rows of a table by index.
  constexpr char gather[] = R"(HloModule m
ENTRY e {
  t = f32[100,64] parameter(0)
  i = s32[5,1] parameter(1)
  ROOT g = f32[5,%d] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,64}
})";
  Accept(absl::StrFormat(gather, 64));
  EXPECT_THAT(Refuse(absl::StrFormat(gather, 32)), HasSubstr("its operands make it f32[5,64]"));
  EXPECT_THAT(Refuse(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  t = f32[100,64] parameter(0)
  i = s32[5,1] parameter(1)
  u = f32[5,64] parameter(2)
  ROOT s = f32[100,32] scatter(t, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})"),
              HasSubstr("its operands make it f32[100,64]"));
}

}  // namespace
}  // namespace xla_layout
