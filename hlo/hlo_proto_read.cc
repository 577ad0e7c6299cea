// HloModuleProto to the IR, through HLO text (hlo_proto_convert.h).
#include <algorithm>
#include <functional>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/hlo_proto_attributes.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/hlo_proto_literal.h"
#include "hlo/hlo_proto_text_forms.h"

namespace xla_layout {
namespace {

using google::protobuf::Message;

bool IsHloName(absl::string_view n) {
  return !n.empty() && std::all_of(n.begin(), n.end(), [](char c) {
    return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
  });
}

absl::Status Bad(absl::string_view where, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("HloModuleProto: ", where, ": ", message));
}

// A node on a cycle of the graph of `n` nodes, or -1 when there is none.
// Iterative: a long chain must not exhaust the stack.
int FindCycle(int n, const std::function<std::vector<int>(int)>& edges) {
  std::vector<int> color(n, 0);  // 0 new, 1 on the path, 2 done
  for (int start = 0; start < n; ++start) {
    if (color[start] != 0) continue;
    std::vector<std::pair<int, std::vector<int>>> stack;
    stack.push_back({start, edges(start)});
    color[start] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next.empty()) {
        color[node] = 2;
        stack.pop_back();
        continue;
      }
      const int to = next.back();
      next.pop_back();
      if (color[to] == 1) return to;
      if (color[to] == 0) {
        color[to] = 1;
        stack.push_back({to, edges(to)});
      }
    }
  }
  return -1;
}

absl::StatusOr<std::string> ShapeText(const xla_layout::ShapeProto& p, absl::string_view where) {
  absl::StatusOr<Shape> s = Shape::FromProto(p);
  if (!s.ok()) return Bad(where, absl::StrCat("shape: ", s.status().message()));
  return s->ToString();
}

std::string Where(const xla::HloComputationProto& c, const xla::HloInstructionProto* i) {
  std::string w = absl::StrCat("computation '", c.name(), "' (id ", c.id(), ")");
  if (i != nullptr) absl::StrAppend(&w, ", instruction '", i->name(), "' (id ", i->id(), ")");
  return w;
}

class ProtoReader {
 public:
  ProtoReader(const xla::HloModuleProto& proto, std::vector<std::string>* warnings)
      : p_(proto), warnings_(warnings) {}

  absl::StatusOr<std::string> Text() {
    absl::Status s = Index();
    if (!s.ok()) return s;
    std::string out = Header();
    for (int c = 0; c < p_.computations_size(); ++c) {
      absl::StatusOr<std::string> text = ComputationText(c);
      if (!text.ok()) return text.status();
      absl::StrAppend(&out, "\n", *text);
    }
    NoteUnread(p_, {"name", "entry_computation_name", "entry_computation_id", "computations",
                    "host_program_shape", "id", "input_output_alias", "buffer_donor",
                    "frontend_attributes"},
               "HloModuleProto");
    if (warnings_ != nullptr) {
      for (const auto& [field, count] : unread_) {
        warnings_->push_back(absl::StrCat("HloModuleProto: ", field, " is set (", count,
                                          count == 1 ? " time" : " times",
                                          ") but not carried; ignored"));
      }
    }
    return out;
  }

 private:
  absl::Status Index();
  absl::Status IndexComputation(int c);
  absl::Status CheckCycles();
  std::string Header() const;
  absl::StatusOr<std::string> ComputationText(int c);
  absl::StatusOr<std::string> InstructionText(int c, const xla::HloInstructionProto& i);
  absl::StatusOr<std::string> Arguments(int c, const xla::HloInstructionProto& i,
                                        std::vector<HloAttribute>& attrs) const;
  const xla::HloInstructionProto& Instr(int c, int64_t id) const {
    return p_.computations(c).instructions(instr_by_id_[c].at(id));
  }
  // Counts the fields of `m` set beyond `read`, and its unknown fields.
  void NoteUnread(const Message& m, const absl::flat_hash_set<std::string>& read,
                  absl::string_view type);

  const xla::HloModuleProto& p_;
  std::vector<std::string>* warnings_;
  absl::flat_hash_map<int64_t, int> computation_by_id_;
  std::vector<absl::flat_hash_map<int64_t, int>> instr_by_id_;
  int entry_ = -1;
  std::map<std::string, int> unread_;
};

void ProtoReader::NoteUnread(const Message& m, const absl::flat_hash_set<std::string>& read,
                             absl::string_view type) {
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  m.GetReflection()->ListFields(m, &fields);
  for (const auto* f : fields) {
    // An empty message (XLA writes `statistics_viz {}`) carries nothing.
    const bool empty = f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE &&
                       !f->is_repeated() &&
                       m.GetReflection()->GetMessage(m, f).ByteSizeLong() == 0;
    if (!read.contains(f->name()) && !empty) ++unread_[absl::StrCat(type, ".", f->name())];
  }
  const auto& unknown = m.GetReflection()->GetUnknownFields(m);
  for (int k = 0; k < unknown.field_count(); ++k) {
    ++unread_[absl::StrCat(type, " field ", unknown.field(k).number())];
  }
}

absl::Status ProtoReader::IndexComputation(int c) {
  const xla::HloComputationProto& comp = p_.computations(c);
  if (!IsHloName(comp.name())) {
    return Bad(Where(comp, nullptr), "the name is not an HLO name");
  }
  if (!computation_by_id_.emplace(comp.id(), c).second) {
    return Bad(Where(comp, nullptr), "a second computation with this id");
  }
  if (comp.instructions_size() == 0) return Bad(Where(comp, nullptr), "no instructions");
  auto& by_id = instr_by_id_[c];
  for (int k = 0; k < comp.instructions_size(); ++k) {
    const xla::HloInstructionProto& i = comp.instructions(k);
    if (!IsHloName(i.name())) return Bad(Where(comp, &i), "the name is not an HLO name");
    if (!by_id.emplace(i.id(), k).second) {
      return Bad(Where(comp, &i), "a second instruction of the computation with this id");
    }
    absl::StatusOr<HloOpcode> op = StringToHloOpcode(i.opcode());
    if (!op.ok()) return Bad(Where(comp, &i), op.status().message());
  }
  if (!by_id.contains(comp.root_id())) {
    return Bad(Where(comp, nullptr),
               absl::StrCat("root_id ", comp.root_id(), " names no instruction of it"));
  }
  return absl::OkStatus();
}

absl::Status ProtoReader::Index() {
  if (!IsHloName(p_.name())) return Bad("module", absl::StrCat("'", p_.name(), "' is not an HLO name"));
  if (p_.computations_size() == 0) return Bad("module", "no computations");
  instr_by_id_.resize(p_.computations_size());
  for (int c = 0; c < p_.computations_size(); ++c) {
    absl::Status s = IndexComputation(c);
    if (!s.ok()) return s;
  }
  auto entry = computation_by_id_.find(p_.entry_computation_id());
  if (entry != computation_by_id_.end()) {
    entry_ = entry->second;
  } else if (p_.entry_computation_id() != 0) {
    return Bad("module", absl::StrCat("entry_computation_id ", p_.entry_computation_id(),
                                      " names no computation"));
  } else {
    entry_ = p_.computations_size() - 1;
    for (int c = 0; c < p_.computations_size(); ++c) {
      if (p_.computations(c).name() == p_.entry_computation_name()) entry_ = c;
    }
  }
  return CheckCycles();
}

absl::Status ProtoReader::CheckCycles() {
  const int n = p_.computations_size();
  for (int c = 0; c < n; ++c) {
    const xla::HloComputationProto& comp = p_.computations(c);
    for (const xla::HloInstructionProto& i : comp.instructions()) {
      for (int64_t id : i.operand_ids()) {
        if (!instr_by_id_[c].contains(id)) {
          return Bad(Where(comp, &i), absl::StrCat("operand id ", id, " names no instruction of ",
                                                   "the computation"));
        }
      }
      for (int64_t id : i.control_predecessor_ids()) {
        if (!instr_by_id_[c].contains(id)) {
          return Bad(Where(comp, &i), absl::StrCat("control predecessor id ", id,
                                                   " names no instruction of the computation"));
        }
      }
      for (int64_t id : i.called_computation_ids()) {
        if (!computation_by_id_.contains(id)) {
          return Bad(Where(comp, &i), absl::StrCat("called computation id ", id,
                                                   " names no computation"));
        }
      }
    }
    const int cycle = FindCycle(comp.instructions_size(), [&](int k) {
      std::vector<int> to;
      const xla::HloInstructionProto& i = comp.instructions(k);
      for (int64_t id : i.operand_ids()) to.push_back(instr_by_id_[c].at(id));
      for (int64_t id : i.control_predecessor_ids()) to.push_back(instr_by_id_[c].at(id));
      return to;
    });
    if (cycle >= 0) {
      return Bad(Where(comp, &comp.instructions(cycle)),
                 "its operand and control-predecessor ids lead back to it (a cycle)");
    }
  }
  const int cycle = FindCycle(n, [&](int c) {
    std::vector<int> to;
    for (const xla::HloInstructionProto& i : p_.computations(c).instructions()) {
      for (int64_t id : i.called_computation_ids()) to.push_back(computation_by_id_.at(id));
    }
    return to;
  });
  if (cycle >= 0) {
    return Bad(Where(p_.computations(cycle), nullptr),
               "its called computation ids lead back to it (a cycle)");
  }
  return absl::OkStatus();
}

std::string IndexText(const google::protobuf::RepeatedField<int64_t>& index) {
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

std::string ProgramShapeText(const xla::ProgramShapeProto& shape) {
  std::vector<std::string> params;
  for (const auto& s : shape.parameters()) {
    absl::StatusOr<std::string> t = ShapeText(s, "host_program_shape");
    params.push_back(t.ok() ? *t : "?");
  }
  absl::StatusOr<std::string> result = ShapeText(shape.result(), "host_program_shape");
  return absl::StrCat("{(", absl::StrJoin(params, ", "), ")->", result.ok() ? *result : "?",
                      "}");
}

bool HasLayout(const xla_layout::ShapeProto& shape) {
  return shape.has_layout() || std::any_of(shape.tuple_shapes().begin(),
                                           shape.tuple_shapes().end(), HasLayout);
}
bool HasLayouts(const xla::ProgramShapeProto& shape) {
  return HasLayout(shape.result()) ||
         std::any_of(shape.parameters().begin(), shape.parameters().end(), HasLayout);
}

std::string ProtoReader::Header() const {
  std::string out = absl::StrCat("HloModule ", p_.name());
  if (HasLayouts(p_.host_program_shape())) {
    absl::StrAppend(&out, ", entry_computation_layout=", ProgramShapeText(p_.host_program_shape()));
  }
  if (p_.input_output_alias().entries_size() > 0) {
    std::vector<std::string> parts;
    for (const auto& e : p_.input_output_alias().entries()) {
      parts.push_back(absl::StrCat(IndexText(e.output_shape_index()), ": (", e.parameter_number(),
                                   ", ", IndexText(e.parameter_shape_index()), ", ",
                                   e.kind() == xla::MUST_ALIAS ? "must-alias" : "may-alias", ")"));
    }
    absl::StrAppend(&out, ", input_output_alias={ ", absl::StrJoin(parts, ", "), " }");
  }
  if (p_.buffer_donor().entries_size() > 0) {
    std::vector<std::string> parts;
    for (const auto& e : p_.buffer_donor().entries()) {
      parts.push_back(absl::StrCat("(", e.parameter_number(), ", ",
                                   IndexText(e.parameter_shape_index()), ")"));
    }
    absl::StrAppend(&out, ", buffer_donor={ ", absl::StrJoin(parts, ", "), " }");
  }
  if (p_.frontend_attributes().map_size() > 0) {
    absl::StrAppend(&out, ", frontend_attributes=",
                    FrontendAttributesText(p_.frontend_attributes()));
  }
  return out + "\n";
}

absl::StatusOr<std::string> ProtoReader::ComputationText(int c) {
  const xla::HloComputationProto& comp = p_.computations(c);
  std::string out = absl::StrCat(c == entry_ ? "ENTRY " : "", "%", comp.name(), " {\n");
  for (const xla::HloInstructionProto& i : comp.instructions()) {
    absl::StatusOr<std::string> text = InstructionText(c, i);
    if (!text.ok()) return text.status();
    absl::StrAppend(&out, "  ", i.id() == comp.root_id() ? "ROOT " : "", *text, "\n");
  }
  out += "}";
  if (!comp.execution_thread().empty() && comp.execution_thread() != "main") {
    absl::StrAppend(&out, ", execution_thread=\"", absl::Utf8SafeCEscape(comp.execution_thread()),
                    "\"");
  }
  return out + "\n";
}

absl::StatusOr<std::string> ProtoReader::Arguments(int c, const xla::HloInstructionProto& i,
                                                   std::vector<HloAttribute>& attrs) const {
  const xla::HloComputationProto& comp = p_.computations(c);
  const HloOpcode op = *StringToHloOpcode(i.opcode());
  if (op == HloOpcode::kParameter) return absl::StrCat(i.parameter_number());
  if (op == HloOpcode::kConstant) {
    if (!i.has_literal()) return Bad(Where(comp, &i), "a constant without a literal");
    Shape shape;
    absl::StatusOr<std::string> text = LiteralProtoToText(i.literal(), &shape);
    if (!text.ok()) return Bad(Where(comp, &i), text.status().message());
    return *text;
  }
  std::vector<std::string> names;
  for (int64_t id : i.operand_ids()) names.push_back(absl::StrCat("%", Instr(c, id).name()));
  const bool permute =
      op == HloOpcode::kCollectivePermute || op == HloOpcode::kCollectivePermuteStart;
  if (permute && i.dynamic_slice_sizes_size() > 0 && i.operand_ids_size() > 0) {
    // The in-place form's slice sizes, one list per slice of the input's rank.
    const int rank = Instr(c, i.operand_ids(0)).shape().dimensions_size();
    std::vector<std::string> lists;
    for (int k = 0; rank > 0 && k < i.dynamic_slice_sizes_size(); k += rank) {
      std::vector<int64_t> sizes;
      for (int d = k; d < k + rank && d < i.dynamic_slice_sizes_size(); ++d) {
        sizes.push_back(i.dynamic_slice_sizes(d));
      }
      lists.push_back(absl::StrCat("{", absl::StrJoin(sizes, ","), "}"));
    }
    attrs.push_back({"slice_sizes", absl::StrCat("{", absl::StrJoin(lists, ","), "}")});
  }
  const bool pred_branch = op == HloOpcode::kConditional && i.operand_ids_size() > 0 &&
                           Instr(c, i.operand_ids(0)).shape().element_type() == PRED;
  const std::vector<std::string> callers =
      CalledComputationAttributes(op, i.called_computation_ids_size(), pred_branch);
  for (int k = 0; k < i.called_computation_ids_size();) {
    std::vector<std::string> callees;
    const std::string& attr = callers[k];
    for (; k < i.called_computation_ids_size() && callers[k] == attr; ++k) {
      const int callee = computation_by_id_.at(i.called_computation_ids(k));
      callees.push_back(absl::StrCat("%", p_.computations(callee).name()));
    }
    const bool list = attr == "branch_computations" || attr == "called_computations";
    attrs.push_back({attr, list ? absl::StrCat("{", absl::StrJoin(callees, ", "), "}")
                                : absl::StrJoin(callees, ", ")});
  }
  if (i.control_predecessor_ids_size() > 0) {
    std::vector<std::string> preds;
    for (int64_t id : i.control_predecessor_ids()) {
      preds.push_back(absl::StrCat("%", Instr(c, id).name()));
    }
    attrs.push_back({"control-predecessors", absl::StrCat("{", absl::StrJoin(preds, ", "), "}")});
  }
  return absl::StrJoin(names, ", ");
}

absl::StatusOr<std::string> ProtoReader::InstructionText(int c, const xla::HloInstructionProto& i) {
  const xla::HloComputationProto& comp = p_.computations(c);
  const HloOpcode op = *StringToHloOpcode(i.opcode());
  absl::flat_hash_set<std::string> read = {
      "name", "opcode", "shape", "id", "operand_ids", "control_predecessor_ids",
      "called_computation_ids", "parameter_number"};
  if (op == HloOpcode::kConstant) read.insert("literal");
  if (op == HloOpcode::kCollectivePermute || op == HloOpcode::kCollectivePermuteStart) {
    read.insert("dynamic_slice_sizes");
  }
  absl::StatusOr<std::vector<HloAttribute>> attrs = AttributesFromProto(i, op, read);
  if (!attrs.ok()) return Bad(Where(comp, &i), attrs.status().message());
  absl::StatusOr<std::string> args = Arguments(c, i, *attrs);
  if (!args.ok()) return args.status();
  absl::StatusOr<std::string> shape = ShapeText(i.shape(), Where(comp, &i));
  if (!shape.ok()) return shape.status();
  NoteUnread(i, read, "HloInstructionProto");
  std::stable_sort(attrs->begin(), attrs->end(), [](const HloAttribute& a, const HloAttribute& b) {
    return AttributeRank(a.name) < AttributeRank(b.name);
  });
  std::string out = absl::StrCat("%", i.name(), " = ", *shape, " ", i.opcode(), "(", *args, ")");
  for (const HloAttribute& a : *attrs) absl::StrAppend(&out, ", ", a.name, "=", a.value);
  return out;
}

}  // namespace

absl::StatusOr<std::string> HloModuleProtoToText(const xla::HloModuleProto& proto,
                                                 std::vector<std::string>* warnings) {
  return ProtoReader(proto, warnings).Text();
}

absl::StatusOr<std::unique_ptr<HloModule>> HloModuleFromProto(
    const xla::HloModuleProto& proto, absl::string_view filename,
    std::vector<std::string>* warnings, const HloParseOptions& options) {
  absl::StatusOr<std::string> text = HloModuleProtoToText(proto, warnings);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(*text, absl::StrCat(filename, " (as HLO text)"), warnings, options);
  if (!module.ok()) return module.status();
  (*module)->set_source_name(std::string(filename));
  return module;
}

}  // namespace xla_layout
