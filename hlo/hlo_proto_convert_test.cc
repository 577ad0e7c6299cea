#include "hlo/hlo_proto_convert.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "hlo/hlo_corpus.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_proto_attributes.h"
#include "hlo/hlo_proto_io.h"
#include "hlo/hlo_proto_literal.h"
#include "hlo/hlo_verifier.h"

namespace xla_layout {
namespace {

using ::testing::HasSubstr;

// Every module the project keeps: the corpus (real/ included), the goldens
// and the examples.
std::vector<CorpusFile> AllModules() {
  std::vector<CorpusFile> all;
  std::vector<std::string> dirs;
  if (std::optional<std::string> corpus = HloCorpusDir()) dirs.push_back(*corpus);
  const char* srcdir = std::getenv("TEST_SRCDIR");
  if (srcdir != nullptr) {
    dirs.push_back(absl::StrCat(srcdir, "/xla_layout/tests/golden"));
    dirs.push_back(absl::StrCat(srcdir, "/xla_layout/examples"));
  }
  for (const std::string& dir : dirs) {
    absl::StatusOr<std::vector<CorpusFile>> files = ReadHloCorpus(dir);
    EXPECT_TRUE(files.ok()) << files.status();
    if (files.ok()) all.insert(all.end(), files->begin(), files->end());
  }
  return all;
}

// The module text XLA's printer would give `module`: attributes in XLA's
// order and literals as XLA prints their values (hand-written text may
// order and write them otherwise), without the header attributes an
// HloModuleProto has no field for (replica_count, ...: the module's
// config, which the conversion warns it drops).
std::string CanonicalText(HloModule& module) {
  OrderAttributesAsXla(module);
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* i : c->instruction_range()) {
      if (i->opcode() != HloOpcode::kConstant || i->literal_value() == nullptr) continue;
      absl::StatusOr<xla::LiteralProto> p = LiteralToProto(*i->literal_value(), i->shape());
      Shape shape;
      absl::StatusOr<std::string> text =
          p.ok() ? LiteralProtoToText(*p, &shape) : absl::StatusOr<std::string>(p.status());
      EXPECT_TRUE(text.ok()) << text.status();
      if (text.ok()) i->set_literal(*text);
    }
  }
  std::vector<HloAttribute>& header = module.mutable_header_attributes();
  header.erase(std::remove_if(header.begin(), header.end(),
                              [](const HloAttribute& a) {
                                return a.name != "input_output_alias" &&
                                       a.name != "buffer_donor" &&
                                       a.name != "frontend_attributes";
                              }),
               header.end());
  return module.ToString();
}

// Warnings the conversion gives for what the proto cannot hold.
bool ExpectedWarning(absl::string_view w) {
  return absl::StrContains(w, "has no field in HloModuleProto") ||
         absl::StrContains(w, "has its values left out");
}

// The message's bytes, map entries sorted: equal messages give equal bytes,
// NaNs included.
std::string Bytes(const google::protobuf::Message& m) { return EncodeProto(m, false); }

std::string Diff(const google::protobuf::Message& a, const google::protobuf::Message& b) {
  std::string diff;
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  differ.Compare(a, b);
  return diff;
}

TEST(HloProtoConvertTest, EveryModuleRoundTripsThroughTheProto) {
  const std::vector<CorpusFile> files = AllModules();
  int checked = 0, real = 0;
  for (const CorpusFile& file : files) {
    absl::StatusOr<std::unique_ptr<HloModule>> m =
        ParseHloModule(file.text, file.path, nullptr, CorpusParseOptions(file));
    if (!m.ok() || !VerifyModule(**m).ok()) continue;  // bad-input goldens
    SCOPED_TRACE(file.path);
    std::vector<std::string> warnings;
    absl::StatusOr<xla::HloModuleProto> proto = HloModuleToProto(**m, &warnings);
    ASSERT_TRUE(proto.ok()) << proto.status();
    absl::StatusOr<std::unique_ptr<HloModule>> back =
        HloModuleFromProto(*proto, file.path, &warnings, CorpusParseOptions(file));
    ASSERT_TRUE(back.ok()) << back.status() << "\n" << HloModuleProtoToText(*proto, nullptr).value_or("");
    EXPECT_TRUE(VerifyModule(**back).ok()) << VerifyModule(**back);
    EXPECT_EQ(CanonicalText(**back), CanonicalText(**m));
    // proto -> text -> proto gives the same message.
    absl::StatusOr<xla::HloModuleProto> again = HloModuleToProto(**back, nullptr);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(Bytes(*proto), Bytes(*again)) << Diff(*proto, *again);
    for (const std::string& w : warnings) {
      if (!ExpectedWarning(w)) ADD_FAILURE() << "warning: " << w;
    }
    ++checked;
    real += absl::StrContains(file.relative, "real/");
  }
  std::cerr << checked << " modules round-tripped, " << real << " of them from real/\n";
  EXPECT_GT(checked, 50);
  if (HloCorpusDir()) {
    EXPECT_GE(real, 4);
  }
}

xla::HloModuleProto FromTextFormat(absl::string_view pbtxt) {
  xla::HloModuleProto p;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(std::string(pbtxt), &p)) << pbtxt;
  return p;
}

// A module of two computations: `add` (id 1) and the entry `main` (id 2).
constexpr absl::string_view kGood = R"pb(
  name: "m" entry_computation_name: "main" entry_computation_id: 2
  computations {
    name: "add" id: 1 root_id: 3
    instructions { name: "x" opcode: "parameter" id: 1 parameter_number: 0
                   shape { element_type: F32 layout {} } }
    instructions { name: "y" opcode: "parameter" id: 2 parameter_number: 1
                   shape { element_type: F32 layout {} } }
    instructions { name: "s" opcode: "add" id: 3 operand_ids: [1, 2]
                   shape { element_type: F32 layout {} } }
  }
  computations {
    name: "main" id: 2 root_id: 6
    instructions { name: "p" opcode: "parameter" id: 4 parameter_number: 0
                   shape { element_type: F32 dimensions: [8, 16]
                           layout { minor_to_major: [1, 0] } } }
    instructions { name: "z" opcode: "constant" id: 5
                   shape { element_type: F32 layout {} }
                   literal { shape { element_type: F32 layout {} } f32s: 0 } }
    instructions { name: "r" opcode: "reduce" id: 6 operand_ids: [4, 5] dimensions: 1
                   called_computation_ids: 1
                   shape { element_type: F32 dimensions: 8 layout { minor_to_major: 0 } }
                   metadata { op_type: "Sum" op_name: "sum" source_line: 3 } }
  }
)pb";

TEST(HloProtoConvertTest, ReadsAModuleAsXlaPrintsIt) {
  std::vector<std::string> warnings;
  absl::StatusOr<std::unique_ptr<HloModule>> m =
      HloModuleFromProto(FromTextFormat(kGood), "m.pb", &warnings);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(warnings, ::testing::IsEmpty());
  EXPECT_EQ((*m)->ToString(),
            "HloModule m\n\n"
            "%add (x: f32[], y: f32[]) -> f32[] {\n"
            "  %x = f32[] parameter(0)\n"
            "  %y = f32[] parameter(1)\n"
            "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n"
            "}\n\n"
            "ENTRY %main (p: f32[8,16]{1,0}) -> f32[8]{0} {\n"
            "  %p = f32[8,16]{1,0} parameter(0)\n"
            "  %z = f32[] constant(0)\n"
            "  ROOT %r = f32[8]{0} reduce(f32[8,16]{1,0} %p, f32[] %z), dimensions={1}, "
            "to_apply=%add, metadata={op_type=\"Sum\" op_name=\"sum\" source_line=3}\n"
            "}\n");
}

// Each bad proto: what to change in kGood, and what the error says.
TEST(HloProtoConvertTest, BadProtosGiveClearErrors) {
  const std::pair<std::function<void(xla::HloModuleProto&)>, const char*> cases[] = {
      {[](auto& p) { p.mutable_computations(1)->mutable_instructions(2)->set_operand_ids(0, 99); },
       "instruction 'r' (id 6): operand id 99 names no instruction of the computation"},
      {[](auto& p) { p.mutable_computations(0)->mutable_instructions(0)->add_operand_ids(3); },
       "lead back to it (a cycle)"},
      {[](auto& p) {
         auto* i = p.mutable_computations(0)->mutable_instructions(2);
         i->set_opcode("call");
         i->clear_operand_ids();
         i->add_called_computation_ids(2);
       },
       "its called computation ids lead back to it (a cycle)"},
      {[](auto& p) { p.mutable_computations(1)->set_id(1); },
       "computation 'main' (id 1): a second computation with this id"},
      {[](auto& p) { p.mutable_computations(1)->mutable_instructions(2)->set_opcode("frobnicate"); },
       "unknown opcode 'frobnicate'"},
      {[](auto& p) { p.mutable_computations(1)->set_root_id(42); },
       "root_id 42 names no instruction of it"},
      {[](auto& p) { p.mutable_computations(1)->mutable_instructions(0)->set_name("a b"); },
       "is not an HLO name"},
      {[](auto& p) { p.mutable_computations(1)->mutable_instructions(2)->set_called_computation_ids(0, 7); },
       "called computation id 7 names no computation"},
      {[](auto& p) { p.set_entry_computation_id(9); }, "entry_computation_id 9 names no computation"},
      {[](auto& p) { p.mutable_computations(1)->mutable_instructions(1)->clear_literal(); },
       "a constant without a literal"},
      {[](auto& p) { p.mutable_computations(1)->mutable_instructions(1)->mutable_literal()->add_f32s(1); },
       "holds 2 values, not 1"},
      {[](auto& p) {
         p.mutable_computations(1)->mutable_instructions(2)->mutable_precision_config()
             ->add_operand_precision(static_cast<xla::PrecisionConfig::Precision>(4));
       },
       "instruction 'r' (id 6): operand_precision value 4 is not a PrecisionConfig.Precision"},
      {[](auto& p) { p.mutable_computations(1)->mutable_instructions(2)->set_operand_ids(0, 5); },
       "error: "},  // a shape error the HLO checks find, positioned in the text
  };
  for (const auto& [change, message] : cases) {
    xla::HloModuleProto p = FromTextFormat(kGood);
    change(p);
    SCOPED_TRACE(message);
    absl::StatusOr<std::unique_ptr<HloModule>> m = HloModuleFromProto(p, "m.pb", nullptr);
    if (m.ok()) {
      EXPECT_FALSE(VerifyModule(**m).ok()) << "accepted:\n" << (*m)->ToString();
      continue;
    }
    EXPECT_THAT(m.status().message(), HasSubstr(message));
  }
}

// The text parser takes any bytes in a quoted string; a proto string field
// takes UTF-8 only, so such a module is refused, not written unreadable (a
// fuzzed op_name with a stray byte did that).
TEST(HloProtoConvertTest, StringsThatAreNotUtf8AreRefused) {
  for (const char* op_name : {"\xff", "a\xc3", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80"}) {
    absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(
        absl::StrCat("HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(0), metadata={op_name=\"",
                     op_name, "\"}\n}\n"),
        "m.hlo");
    ASSERT_TRUE(m.ok()) << m.status();
    absl::StatusOr<xla::HloModuleProto> p = HloModuleToProto(**m, nullptr);
    ASSERT_FALSE(p.ok()) << absl::CEscape(op_name);
    EXPECT_THAT(std::string(p.status().message()),
                ::testing::HasSubstr("instruction 'p': metadata.op_name is not UTF-8"));
  }
  for (const char* op_name : {"plain", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"}) {
    absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(
        absl::StrCat("HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(0), metadata={op_name=\"",
                     op_name, "\"}\n}\n"),
        "m.hlo");
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_TRUE(HloModuleToProto(**m, nullptr).ok()) << absl::CEscape(op_name);
  }
}

// XLA leaves an all-DEFAULT operand_precision out of its text; the proto
// does too, so text -> proto -> text -> proto writes the same bytes (a fuzzed
// {DEFAULT} list was read as nothing and written back as nothing).
TEST(HloProtoConvertTest, AllDefaultPrecisionIsNoListBothWays) {
  const std::pair<const char*, std::vector<int>> cases[] = {
      {"", {}}, {", operand_precision={default,default}", {}},
      {", operand_precision={high,default}", {1, 0}},
      {", operand_precision={default,highest}", {0, 2}}};
  for (const auto& [attribute, expected] : cases) {
    SCOPED_TRACE(attribute);
    std::unique_ptr<HloModule> m =
        ParseHloModule(absl::StrCat("HloModule m\nENTRY e {\n  a = f32[2,2] parameter(0)\n"
                                    "  ROOT d = f32[2,2] dot(a, a), lhs_contracting_dims={1}, "
                                    "rhs_contracting_dims={0}",
                                    attribute, "\n}\n"))
            .value();
    xla::HloModuleProto p = HloModuleToProto(*m, nullptr).value();
    const xla::HloInstructionProto& dot = p.computations(0).instructions(1);
    EXPECT_THAT(dot.precision_config().operand_precision(),
                ::testing::ElementsAreArray(expected));
    std::unique_ptr<HloModule> back = HloModuleFromProto(p, "m.pb", nullptr).value();
    EXPECT_EQ(Bytes(HloModuleToProto(*back, nullptr).value()), Bytes(p));
  }
}

TEST(HloProtoConvertTest, FieldsNotCarriedAreNamedInAWarning) {
  xla::HloModuleProto p = FromTextFormat(kGood);
  p.mutable_computations(1)->mutable_instructions(2)->mutable_statistics_viz()->set_stat_index_to_visualize(1);
  p.set_is_dynamic(true);
  p.mutable_computations(1)->mutable_instructions(0)->GetReflection()
      ->MutableUnknownFields(p.mutable_computations(1)->mutable_instructions(0))
      ->AddVarint(1234, 1);
  std::vector<std::string> warnings;
  ASSERT_TRUE(HloModuleFromProto(p, "m.pb", &warnings).ok());
  EXPECT_THAT(warnings, ::testing::UnorderedElementsAre(
                            HasSubstr("HloInstructionProto.statistics_viz is set (1 time)"),
                            HasSubstr("HloModuleProto.is_dynamic is set"),
                            HasSubstr("HloInstructionProto field 1234 is set")));
}

// The fields XLA reads: conv dimension numbers, window, groups, sharding.
TEST(HloProtoConvertTest, AttributesGoToXlasFields) {
  std::unique_ptr<HloModule> m = ParseHloModule(R"(
HloModule m, replica_count=4
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}
ENTRY e {
  a = f32[1,8,8,3] parameter(0), sharding={devices=[2,1,1,1]<=[2]}
  k = f32[3,3,3,4] parameter(1), frontend_attributes={b="2",a="1"}
  c = f32[1,4,4,4] convolution(a, k), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ROOT r = f32[1,4,4,4] all-reduce(c), channel_id=3, replica_groups=[2,2]<=[2,2]T(1,0), to_apply=%add
})").value();
  std::vector<std::string> warnings;
  xla::HloModuleProto p = HloModuleToProto(*m, &warnings).value();
  EXPECT_THAT(warnings, ::testing::ElementsAre(HasSubstr("replica_count has no field")));
  const xla::HloComputationProto& e = p.computations(1);
  const auto& conv = e.instructions(2);
  EXPECT_EQ(conv.convolution_dimension_numbers().input_batch_dimension(), 0);
  EXPECT_EQ(conv.convolution_dimension_numbers().input_feature_dimension(), 3);
  EXPECT_THAT(conv.convolution_dimension_numbers().input_spatial_dimensions(),
              ::testing::ElementsAre(1, 2));
  EXPECT_EQ(conv.convolution_dimension_numbers().kernel_input_feature_dimension(), 2);
  EXPECT_EQ(conv.convolution_dimension_numbers().kernel_output_feature_dimension(), 3);
  EXPECT_EQ(conv.window().dimensions(0).stride(), 2);
  EXPECT_EQ(conv.window().dimensions(1).padding_high(), 1);
  EXPECT_EQ(conv.window().dimensions(1).window_dilation(), 1);
  const auto& ar = e.instructions(3);
  EXPECT_EQ(ar.channel_id(), 3);
  EXPECT_EQ(ar.collective_device_list().iota_replica_group_list().num_replica_groups(), 2);
  EXPECT_THAT(ar.collective_device_list().iota_replica_group_list().iota_transpose_perm(),
              ::testing::ElementsAre(1, 0));
  EXPECT_THAT(ar.called_computation_ids(), ::testing::ElementsAre(p.computations(0).id()));
  EXPECT_EQ(e.instructions(0).sharding().type(), xla::OpSharding::OTHER);
  EXPECT_THAT(e.instructions(0).sharding().iota_reshape_dims(), ::testing::ElementsAre(2));
  EXPECT_EQ(e.instructions(1).frontend_attributes().map().at("a"), "1");
  EXPECT_EQ(p.entry_computation_id(), e.id());
  // Read back, the frontend attributes are sorted, as XLA prints them.
  std::unique_ptr<HloModule> back = HloModuleFromProto(p, "m.pb", nullptr).value();
  EXPECT_THAT(back->ToString(), HasSubstr("frontend_attributes={a=\"1\",b=\"2\"}"));
  EXPECT_THAT(back->ToString(), HasSubstr("replica_groups=[2,2]<=[2,2]T(1,0), to_apply=%add"));
}

}  // namespace
}  // namespace xla_layout
