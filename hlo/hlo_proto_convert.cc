// The IR to HloModuleProto; the other way is in hlo_proto_read.cc.
#include "hlo/hlo_proto_convert.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "hlo/hlo_attributes.h"
#include "hlo/hlo_proto_attributes.h"
#include "hlo/hlo_proto_literal.h"
#include "hlo/hlo_proto_text_forms.h"

namespace xla_layout {
namespace {

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code
// points past U+10FFFF): proto3 refuses to parse a string field that is
// not, so a module holding such bytes has no HloModuleProto.
bool IsUtf8(absl::string_view s) {
  static constexpr uint32_t kLeast[] = {0, 0x80, 0x800, 0x10000};
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int more = 0;
    uint32_t code = c;
    if (c >= 0x80) {
      if ((c & 0xE0) == 0xC0) more = 1, code = c & 0x1F;
      else if ((c & 0xF0) == 0xE0) more = 2, code = c & 0x0F;
      else if ((c & 0xF8) == 0xF0) more = 3, code = c & 0x07;
      else return false;
    }
    if (s.size() - i <= static_cast<size_t>(more)) return false;
    for (int k = 1; k <= more; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      code = (code << 6) | (d & 0x3F);
    }
    if (code < kLeast[more] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
      return false;
    }
    i += more + 1;
  }
  return true;
}

// The path of the first string field (bytes fields may hold anything) of
// `m` that is not UTF-8, e.g. "metadata.op_name".
std::optional<std::string> NonUtf8Field(const google::protobuf::Message& m) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection& r = *m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r.ListFields(m, &fields);
  std::string scratch;
  for (const FieldDescriptor* f : fields) {
    const int n = f->is_repeated() ? r.FieldSize(m, f) : 1;
    for (int k = 0; k < n; ++k) {
      if (f->type() == FieldDescriptor::TYPE_STRING) {
        const std::string& v = f->is_repeated() ? r.GetRepeatedStringReference(m, f, k, &scratch)
                                                : r.GetStringReference(m, f, &scratch);
        if (!IsUtf8(v)) return f->name();
      } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        const google::protobuf::Message& sub =
            f->is_repeated() ? r.GetRepeatedMessage(m, f, k) : r.GetMessage(m, f);
        if (std::optional<std::string> path = NonUtf8Field(sub)) {
          return absl::StrCat(f->name(), ".", *path);
        }
      }
    }
  }
  return std::nullopt;
}

// An error naming the first instruction (or else the module field) whose
// string field is not UTF-8.
absl::Status CheckUtf8(const xla::HloModuleProto& p) {
  for (const xla::HloComputationProto& c : p.computations()) {
    for (const xla::HloInstructionProto& i : c.instructions()) {
      if (std::optional<std::string> field = NonUtf8Field(i)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "instruction '", i.name(), "': ", *field,
            " is not UTF-8, which HloModuleProto's string fields must be"));
      }
    }
  }
  if (std::optional<std::string> field = NonUtf8Field(p)) {
    return absl::InvalidArgumentError(
        absl::StrCat(*field, " is not UTF-8, which HloModuleProto's string fields must be"));
  }
  return absl::OkStatus();
}

// `shape` without its layouts, recursively.
void StripLayouts(xla_layout::ShapeProto& shape) {
  shape.clear_layout();
  for (xla_layout::ShapeProto& t : *shape.mutable_tuple_shapes()) StripLayouts(t);
}

// `p` (the proto of `shape`) without the default layouts: those the parser
// filled in where the text wrote none (a written default layout goes too,
// which reads back as the same shape).
void StripDefaultLayouts(const Shape& shape, xla_layout::ShapeProto& p) {
  if (shape.IsTuple()) {
    for (size_t k = 0; k < shape.tuple_shapes().size(); ++k) {
      StripDefaultLayouts(shape.tuple_shapes()[k], *p.mutable_tuple_shapes(k));
    }
  } else if (shape.has_layout() &&
             shape.layout() == DefaultLayoutForRank(static_cast<int>(shape.dimensions().size()))) {
    p.clear_layout();
  }
}

xla_layout::ShapeProto ShapeProtoOf(const Shape& shape, bool layout_written) {
  xla_layout::ShapeProto p = shape.ToProto();
  if (!layout_written) StripDefaultLayouts(shape, p);
  return p;
}

struct Ids {
  absl::flat_hash_map<const HloComputation*, int64_t> computations;
  absl::flat_hash_map<const HloInstruction*, int64_t> instructions;
};

// Callees before callers, as XLA's loader needs them: the module's order
// when it is one, else the post order.
std::vector<HloComputation*> ProtoOrder(const HloModule& module) {
  std::vector<HloComputation*> order = module.computations();
  absl::flat_hash_set<const HloComputation*> seen;
  for (const HloComputation* c : order) {
    for (const HloInstruction* i : c->instruction_range()) {
      for (const auto& called : i->called_computations()) {
        if (!seen.contains(called.computation)) return module.MakeComputationPostOrder();
      }
    }
    seen.insert(c);
  }
  return order;
}

void Warn(std::vector<std::string>* warnings, std::string message) {
  if (warnings != nullptr) warnings->push_back(std::move(message));
}

absl::Status ControlPredecessors(const HloInstruction& instr, const HloAttribute& a,
                                 const Ids& ids, xla::HloInstructionProto& proto) {
  absl::StatusOr<std::vector<std::string>> names = ParseNameList(a.value);
  if (!names.ok()) return names.status();
  for (const std::string& n : *names) {
    const HloInstruction* p = instr.parent()->FindInstruction(n);
    if (p == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("control predecessor '", n, "' of '",
                                                     instr.name(), "' is not in its computation"));
    }
    proto.add_control_predecessor_ids(ids.instructions.at(p));
  }
  return absl::OkStatus();
}

absl::StatusOr<xla::HloInstructionProto> InstructionToProto(const HloInstruction& instr,
                                                            const Ids& ids,
                                                            std::vector<std::string>* warnings) {
  xla::HloInstructionProto p;
  p.set_name(instr.name());
  p.set_opcode(std::string(HloOpcodeString(instr.opcode())));
  *p.mutable_shape() = ShapeProtoOf(instr.shape(), instr.layout_written());
  p.set_id(ids.instructions.at(&instr));
  for (const HloInstruction* o : instr.operands()) p.add_operand_ids(ids.instructions.at(o));
  // In XLA's order (condition before body, ...), whatever the text's.
  std::vector<HloInstruction::CalledComputation> called = instr.called_computations();
  std::stable_sort(called.begin(), called.end(), [](const auto& a, const auto& b) {
    return AttributeRank(a.attribute) < AttributeRank(b.attribute);
  });
  for (const auto& c : called) p.add_called_computation_ids(ids.computations.at(c.computation));
  if (instr.opcode() == HloOpcode::kParameter) p.set_parameter_number(instr.parameter_number());
  if (instr.opcode() == HloOpcode::kConstant) {
    if (instr.literal_value() == nullptr) {
      Warn(warnings, absl::StrCat("constant '", instr.name(), "' has no value to write"));
    } else {
      absl::StatusOr<xla::LiteralProto> lit = LiteralToProto(*instr.literal_value(), instr.shape());
      if (!lit.ok()) return lit.status();
      if (instr.literal_value()->abbreviated()) {
        Warn(warnings, absl::StrCat("constant '", instr.name(),
                                    "' has its values left out ({...}); the proto holds none"));
      }
      *p.mutable_literal() = *std::move(lit);
    }
  }
  if (instr.opcode() == HloOpcode::kCustomCall) {
    p.set_custom_call_api_version(xla::API_VERSION_ORIGINAL);  // XLA's when none is written
  }
  for (const HloAttribute& a : instr.raw_attributes()) {
    if (instr.called_computation(a.name) != nullptr) continue;
    absl::Status s = a.name == "control-predecessors" ? ControlPredecessors(instr, a, ids, p)
                                                      : AttributeToProto(instr, a, p);
    if (absl::IsNotFound(s)) {
      Warn(warnings, absl::StrCat("'", instr.name(), "': attribute ", a.name,
                                  " has no field in HloInstructionProto; not written"));
    } else if (!s.ok()) {
      Warn(warnings, absl::StrCat("'", instr.name(), "': attribute ", a.name, " not written: ",
                                  s.message()));
    }
  }
  return p;
}

xla::ProgramShapeProto ProgramShapeOf(const HloComputation& c) {
  xla::ProgramShapeProto shape;
  for (const HloInstruction* p : c.parameters()) {
    if (p == nullptr) continue;
    *shape.add_parameters() = ShapeProtoOf(p->shape(), p->layout_written());
    shape.add_parameter_names(p->name());
  }
  if (c.root() != nullptr) {
    *shape.mutable_result() = ShapeProtoOf(c.root()->shape(), c.root()->layout_written());
  }
  return shape;
}

absl::StatusOr<xla::HloComputationProto> ComputationToProto(
    const HloComputation& c, const Ids& ids, bool fusion, std::vector<std::string>* warnings) {
  xla::HloComputationProto p;
  p.set_name(c.name());
  p.set_id(ids.computations.at(&c));
  for (const HloInstruction* i : c.instruction_range()) {
    absl::StatusOr<xla::HloInstructionProto> ip = InstructionToProto(*i, ids, warnings);
    if (!ip.ok()) return ip.status();
    *p.add_instructions() = *std::move(ip);
  }
  if (c.root() != nullptr) p.set_root_id(ids.instructions.at(c.root()));
  *p.mutable_program_shape() = ProgramShapeOf(c);
  p.set_is_fusion_computation(fusion);
  p.set_execution_thread(c.execution_thread());
  return p;
}

void ModuleFieldsToProto(const HloModule& module, xla::HloModuleProto& p,
                         std::vector<std::string>* warnings) {
  if (const auto& layout = module.entry_computation_layout()) {
    xla::ProgramShapeProto* shape = p.mutable_host_program_shape();
    for (const Shape& s : layout->parameters) *shape->add_parameters() = s.ToProto();
    *shape->mutable_result() = layout->result.ToProto();
  } else if (module.entry() != nullptr) {
    // No entry layout was written: the program shape has none either, which
    // leaves the layouts to be chosen, as in XLA.
    xla::ProgramShapeProto* shape = p.mutable_host_program_shape();
    *shape = ProgramShapeOf(*module.entry());
    shape->clear_parameter_names();
    for (auto& s : *shape->mutable_parameters()) StripLayouts(s);
    StripLayouts(*shape->mutable_result());
  }
  for (const InputOutputAlias& a : module.input_output_aliases()) {
    auto* e = p.mutable_input_output_alias()->add_entries();
    *e->mutable_output_shape_index() = {a.output_index.begin(), a.output_index.end()};
    e->set_parameter_number(a.parameter);
    *e->mutable_parameter_shape_index() = {a.parameter_index.begin(), a.parameter_index.end()};
    e->set_kind(a.must_alias ? xla::MUST_ALIAS : xla::MAY_ALIAS);
  }
  for (const BufferDonor& d : module.buffer_donors()) {
    auto* e = p.mutable_buffer_donor()->add_entries();
    e->set_parameter_number(d.parameter);
    *e->mutable_parameter_shape_index() = {d.parameter_index.begin(), d.parameter_index.end()};
  }
  for (const HloAttribute& a : module.header_attributes()) {
    if (a.name == "input_output_alias" || a.name == "buffer_donor") continue;
    if (a.name == "frontend_attributes") {
      absl::StatusOr<xla::FrontendAttributes> f = ParseFrontendAttributesText(a.value);
      if (f.ok()) {
        *p.mutable_frontend_attributes() = *std::move(f);
        continue;
      }
    }
    Warn(warnings, absl::StrCat("module attribute ", a.name,
                                " has no field in HloModuleProto; not written"));
  }
}

}  // namespace

absl::StatusOr<xla::HloModuleProto> HloModuleToProto(const HloModule& module,
                                                     std::vector<std::string>* warnings) {
  Ids ids;
  const std::vector<HloComputation*> order = ProtoOrder(module);
  absl::flat_hash_set<const HloComputation*> fusions;
  int64_t next = 1;
  for (const HloComputation* c : order) {
    ids.computations[c] = static_cast<int64_t>(ids.computations.size()) + 1;
    for (const HloInstruction* i : c->instruction_range()) {
      ids.instructions[i] = next++;
      if (i->opcode() == HloOpcode::kFusion) {
        for (const auto& called : i->called_computations()) fusions.insert(called.computation);
      }
    }
  }
  xla::HloModuleProto p;
  p.set_name(module.name());
  for (const HloComputation* c : order) {
    absl::StatusOr<xla::HloComputationProto> cp =
        ComputationToProto(*c, ids, fusions.contains(c), warnings);
    if (!cp.ok()) return cp.status();
    *p.add_computations() = *std::move(cp);
  }
  if (module.entry() != nullptr) {
    p.set_entry_computation_name(module.entry()->name());
    p.set_entry_computation_id(ids.computations.at(module.entry()));
  }
  ModuleFieldsToProto(module, p, warnings);
  absl::Status utf8 = CheckUtf8(p);
  if (!utf8.ok()) return utf8;
  return p;
}

}  // namespace xla_layout
