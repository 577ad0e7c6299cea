// An HLO module IR for XLA's text format: modules own computations,
// computations own instructions, instructions point at their operands and
// users. Attributes the passes read are typed (HloInstruction::Attributes)
// and parsed once by the parser; every other attribute is kept verbatim, in
// order, and printed back unchanged.
//
// A constant keeps its literal text (printed back as written) and its parsed
// value (hlo_literal.h); the module keeps input_output_alias and buffer_donor
// typed beside their header text. The verifier (hlo_verifier.h) says what
// it checks.
#ifndef HLO_HLO_MODULE_H_
#define HLO_HLO_MODULE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/hlo_opcode.h"
#include "hlo/source_text.h"
#include "xla_layout/out_of_line.h"
#include "xla_layout/shape.h"
#include "xla_layout/shape_text.h"

namespace xla_layout {

class HloComputation;
class HloLiteral;
class HloModule;

// convolution's dim_labels=b01f_01io->b01f, split into its three parts.
struct ConvolutionDimLabels {
  std::string input;   // "b01f": b batch, f feature, digits spatial dims
  std::string kernel;  // "01io": i input feature, o output feature
  std::string output;  // "b01f"
};

// One spatial dim of a `window={size=3x3 stride=2x2 pad=1_1x1_1 ...}`.
struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t lhs_dilation = 1;  // `lhs_dilate`: the input's dilation
  int64_t rhs_dilation = 1;  // `rhs_dilate`: the window's dilation
  bool reversal = false;     // `rhs_reversal`
};

// One entry of custom-call's output_to_operand_aliasing={{0}: (1, {})}: the
// result at `output_index` shares its buffer with operand `operand` at
// `operand_index` (shape indices into tuples; empty for the whole value).
struct OutputOperandAlias {
  std::vector<int64_t> output_index;
  int64_t operand = 0;
  std::vector<int64_t> operand_index;
};

// custom-call's `literal=s32[2]{0} {1, 2}`: the literal's shape (default
// layout filled in), its value's text as written, and the value parsed
// against the shape.
struct LiteralAttribute {
  Shape shape;
  std::string text;
  std::shared_ptr<const HloLiteral> value;  // immutable, shared by clones
};

// One descriptor of a dot's `sparsity=L.1@2:4`: the lhs (L, operand 0) or
// rhs (R, operand 1) is stored compressed along `dimension`, `n` of every
// `m` logical elements kept (structured N:M sparsity), so that dim holds
// n/m of the logical contracting size. Several join with `_`.
struct SparsityDescriptor {
  int operand = 0;
  int64_t dimension = 0;
  int64_t n = 0;
  int64_t m = 0;
};

// An attribute as written: `name=value`.
struct HloAttribute {
  std::string name;
  std::string value;
};

class HloInstruction {
 public:
  HloInstruction(std::string name, HloOpcode opcode, Shape shape);

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  HloOpcode opcode() const { return opcode_; }
  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }
  // Sets the layout of an array result (or of tuple element `index`).
  void set_layout(const Layout& layout) { shape_.set_layout(layout); }
  // Whether the text wrote a layout for every non-scalar array in the result
  // (the parser fills the others with defaults, as XLA's does). Layout
  // assignment keeps written entry layouts and treats the rest as hints.
  bool layout_written() const { return layout_written_; }
  void set_layout_written(bool written) { layout_written_ = written; }

  // Two inline: most instructions read one or two values.
  using InstructionList = absl::InlinedVector<HloInstruction*, 2>;
  const InstructionList& operands() const { return operands_; }
  HloInstruction* operand(int i) const { return operands_[i]; }
  int operand_count() const { return static_cast<int>(operands_.size()); }
  // Instructions that use this one, once each, in no particular order.
  const InstructionList& users() const { return users_; }
  void AppendOperand(HloInstruction* operand);
  // Points operand i at `replacement`, keeping user lists right.
  void ReplaceOperandWith(int i, HloInstruction* replacement);
  // Points every use of this instruction (except in `replacement` itself) at
  // `replacement`; the computation root follows too.
  void ReplaceAllUsesWith(HloInstruction* replacement);

  HloComputation* parent() const { return parent_; }
  // A number unique among the instructions its computation has held, given
  // as it is added (0, 1, 2, ...; below parent()->local_id_bound()), so that
  // per-instruction tables can be vectors instead of hash maps. -1 before.
  int local_id() const { return local_id_; }

  // Where the text defined this instruction (its name); unknown for
  // instructions a pass made.
  const SourceLocation& location() const { return location_; }
  void set_location(SourceLocation location) { location_ = location; }

  // Computations called through an attribute (to_apply, calls, condition,
  // body, branch_computations, ...), in attribute order.
  struct CalledComputation {
    std::string attribute;
    HloComputation* computation;
  };
  const std::vector<CalledComputation>& called_computations() const {
    return extra_.get().called;
  }
  HloComputation* called_computation(absl::string_view attribute) const;
  // Keeps the parent's CallingInstructions() up to date.
  void AddCalledComputation(std::string attribute, HloComputation* c);
  // Points the `index`th called computation at `c` (call-graph flattening).
  void set_called_computation(size_t index, HloComputation* c) {
    extra_.mutable_get().called[index].computation = c;
  }

  // parameter(N).
  int64_t parameter_number() const { return extra_.get().parameter_number; }
  void set_parameter_number(int64_t n) { extra_.mutable_get().parameter_number = n; }
  // The literal of a constant, as written between its parentheses (it
  // prints back so), and its value, parsed against the constant's shape.
  const std::string& literal() const;
  void set_literal(std::string text);
  const HloLiteral* literal_value() const {
    return extra_.get().literal_value.get();
  }
  void set_literal_value(std::shared_ptr<const HloLiteral> value);

  // Typed attributes; std::nullopt when absent. The common ones are inline;
  // a dot's dimension numbers and the attributes of few opcodes are out of
  // line, so that the other instructions do not pay for them.
  struct Attributes {
    std::optional<std::vector<int64_t>> dimensions;
    // get-tuple-element's index; none on other instructions. Kept with the
    // keywords, out of line: every other instruction pays nothing for it,
    // where an optional took 16 bytes of each.
    std::optional<int64_t> index() const { return keywords().index; }
    void set_index(int64_t index) { mutable_keywords().index = index; }
    // dot (and the dot of a fused computation).
    struct Dot {
      std::optional<std::vector<int64_t>> lhs_contracting_dims;
      std::optional<std::vector<int64_t>> rhs_contracting_dims;
      std::optional<std::vector<int64_t>> lhs_batch_dims;
      std::optional<std::vector<int64_t>> rhs_batch_dims;
      // A sparse dot's descriptors; each has a metadata operand, from
      // operand 2 on, in this order.
      std::vector<SparsityDescriptor> sparsity;
    };
    const Dot& dot() const { return dot_.get(); }
    Dot& mutable_dot() { return dot_.mutable_get(); }
    // Keywords: compare's direction and a fusion's kind, and beside them
    // get-tuple-element's index (read through index()). Out of line too:
    // only compares, fusions and get-tuple-elements have them, and held
    // inline they would grow every instruction.
    struct Keywords {
      std::optional<std::string> direction;  // EQ, LT, ...
      std::optional<std::string> kind;       // kLoop, ...
      std::optional<int64_t> index;          // get-tuple-element
    };
    const Keywords& keywords() const { return keywords_.get(); }
    Keywords& mutable_keywords() { return keywords_.mutable_get(); }
    // Attributes of few opcodes (convolution, gather, scatter, custom
    // calls, iota), out of line so that other instructions do not pay for
    // them.
    struct Rare {
      // slice={[b:e:s], ...}: begin, end, stride per dim.
      std::optional<std::vector<std::array<int64_t, 3>>> slice;
      // padding=lo_hi[_interior]x...: per dim.
      std::optional<std::vector<std::array<int64_t, 3>>> padding;
      // The three below print as written (their raw text), so that a module
      // round-trips byte for byte; no pass edits them.
      std::optional<ConvolutionDimLabels> dim_labels;
      // custom-call: the layouts its operands must have, one shape per
      // operand (default layouts filled in where none is written).
      std::optional<std::vector<Shape>> operand_layout_constraints;
      std::optional<std::vector<OutputOperandAlias>> output_to_operand_aliasing;
      // custom-call's literal=; prints as XLA prints it: the shape with its
      // layout, then the value as written.
      std::optional<LiteralAttribute> literal;
      // Convolution and reduce-window.
      std::optional<std::vector<WindowDimension>> window;
      std::optional<int64_t> feature_group_count;
      std::optional<int64_t> batch_group_count;
      // dynamic-slice, gather.
      std::optional<std::vector<int64_t>> dynamic_slice_sizes;
      std::optional<std::vector<int64_t>> slice_sizes;
      // gather: offset_dims, collapsed_slice_dims, start_index_map,
      // operand_batching_dims, start_indices_batching_dims; scatter:
      // update_window_dims, inserted_window_dims,
      // scatter_dims_to_operand_dims, input_batching_dims,
      // scatter_indices_batching_dims. By name, in the order written.
      std::vector<std::pair<std::string, std::vector<int64_t>>> dimension_numbers;
      std::optional<int64_t> index_vector_dim;
      std::optional<int64_t> iota_dimension;  // iota
      // send, recv, collectives: ops with one channel_id communicate.
      std::optional<int64_t> channel_id;
      // Lists of lists, as XLA writes them ({{0,1},{1,2}}), printed back
      // without spaces as XLA prints them. collective-permute: the
      // (source, target) pairs, and the in-place form's slice_sizes (one
      // list per slice; gather's slice_sizes above stay one list).
      // Collectives: replica_groups in its list form (the iota form
      // `[2,2]<=[4]` stays raw text and leaves this empty).
      std::optional<std::vector<std::vector<int64_t>>> source_target_pairs;
      std::optional<std::vector<std::vector<int64_t>>> slice_sizes_list;
      std::optional<std::vector<std::vector<int64_t>>> replica_groups;
    };
    const Rare& rare() const { return rare_.get(); }
    Rare& mutable_rare() { return rare_.mutable_get(); }

   private:
    OutOfLine<Dot> dot_;
    OutOfLine<Keywords> keywords_;
    OutOfLine<Rare> rare_;
  };
  const Attributes& attributes() const { return attributes_; }
  // attributes().dimension_numbers[name], or empty when not written.
  std::vector<int64_t> DimensionNumbers(absl::string_view name) const;
  Attributes& mutable_attributes() { return attributes_; }

  // Every attribute in written order. Typed ones print from the typed value;
  // the others print verbatim.
  const std::vector<HloAttribute>& raw_attributes() const { return raw_; }
  std::vector<HloAttribute>& mutable_raw_attributes() { return raw_; }

  // Starts loading what nearly every walk over the instructions reads: the
  // first line, with the opcode and the operand and user lists. A hint
  // only. One line, not also the shape's: the walks that read only the
  // opcode outnumber those that read layouts, and each outstanding fetch
  // holds one of the core's few line-fill buffers (a second prefetch per
  // instruction measured no faster at 1M instructions).
  void PrefetchForWalk() const { __builtin_prefetch(&opcode_); }

  // The text of this instruction, without indentation or ROOT. An
  // async-start whose called computation is one op on its parameters (and
  // the async-update and async-done that continue it) prints in XLA's
  // shorthand, `add-start(a, b)` with the op's attributes, as XLA prints
  // it; see AsyncShorthandOpcode.
  std::string ToString(const PrintOptions& options = {}) const;
  // Appends that text to `out` (printing a module builds no string per
  // instruction).
  void Print(std::string* out, const PrintOptions& options = {}) const;

 private:
  friend class HloComputation;
  // `, name=value` for each attribute in written order (`calls` left out
  // when `skip_calls`); shapes inside values print by `options`.
  void PrintAttributes(std::string& out, const PrintOptions& options, bool skip_calls) const;
  // The module's print: an async op prints as shorthand only when its
  // wrapped computation is among `implied` (null: whenever it can).
  void Print(std::string* out, const PrintOptions& options,
             const absl::flat_hash_set<const HloComputation*>* implied) const;
  // What few instructions have, in one block out of line (8 bytes in every
  // instruction, not 24): the computations it calls, a parameter's number,
  // a constant's literal.
  struct Extra {
    std::vector<CalledComputation> called;
    int64_t parameter_number = -1;
    std::string literal_text;
    std::shared_ptr<const HloLiteral> literal_value;  // immutable, shared by clones
  };
  // The first 64 bytes hold what nearly every walk reads (the opcode, the
  // operand and user lists, whether it calls computations), so that a walk
  // over a module far larger than the caches fetches one line of each
  // instruction, not three; the shape follows.
  HloOpcode opcode_;
  bool layout_written_ = false;  // beside the opcode: no padding of its own
  int local_id_ = -1;
  InstructionList operands_;
  InstructionList users_;
  OutOfLine<Extra> extra_;
  Shape shape_;
  HloComputation* parent_ = nullptr;
  std::string name_;
  SourceLocation location_;
  Attributes attributes_;
  std::vector<HloAttribute> raw_;
};

// collective-permute or collective-permute-start in its in-place form: four
// operands (input, output buffer, input and output start indices) and
// slice_sizes. The result (the start's second element) is the output
// buffer, with its layout.
bool IsInPlaceCollectivePermute(const HloInstruction& i);

// The op an async-start, -update or -done prints as in XLA's shorthand
// (`add` for add-start), or nullopt when it prints in the long form. The
// shorthand holds when the start's called computation is its parameters and
// one op reading them in order, with the start's operand shapes and result
// shape; the start carries no attribute but calls and async_execution_thread
// (the computation's thread); and `<op>-start`, `-update` and `-done` are no
// opcodes of their own (all-reduce-start is one: all-reduce is never
// shorthand). An update or done follows the start it continues.
std::optional<HloOpcode> AsyncShorthandOpcode(const HloInstruction& i);

class HloComputation {
 public:
  explicit HloComputation(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  HloModule* parent() const { return parent_; }
  bool is_entry() const;
  const SourceLocation& location() const { return location_; }
  void set_location(SourceLocation location) { location_ = location; }
  // The thread the computation runs on (`}, execution_thread="host"`);
  // empty for the main thread, which XLA does not print.
  const std::string& execution_thread() const { return execution_thread_; }
  void set_execution_thread(std::string thread) {
    execution_thread_ = std::move(thread);
  }

  // Instructions in the order they are printed, as a copy that stays valid
  // while the computation changes.
  std::vector<HloInstruction*> instructions() const;
  // The same instructions without the copy, for walks that add and remove
  // none: adding or removing an instruction invalidates the range. On a
  // computation of a million instructions the copy is 8 MB written and
  // read again, and a pass walks the instructions a dozen times.
  class InstructionRange {
   public:
    // How many places ahead a walk starts loading an instruction.
    static constexpr size_t kPrefetchAhead = 16;
    using Storage = std::vector<std::unique_ptr<HloInstruction>>;
    class Iterator {
     public:
      // An input iterator: it yields pointers by value, not references.
      using iterator_category = std::input_iterator_tag;
      using value_type = HloInstruction*;
      using difference_type = std::ptrdiff_t;
      using pointer = HloInstruction* const*;
      using reference = HloInstruction*;
      Iterator(Storage::const_iterator at, Storage::const_iterator end) : at_(at), end_(end) {}
      HloInstruction* operator*() const { return at_->get(); }
      // Each step starts loading the instruction kPrefetchAhead places on:
      // the instructions lie apart in the heap, beside their operand lists
      // and attributes, so a walk over a computation far larger than the
      // caches misses on each of them, in a pattern the hardware does not
      // guess.
      Iterator& operator++() {
        ++at_;
        constexpr auto kAhead = static_cast<std::ptrdiff_t>(kPrefetchAhead);
        if (end_ - at_ > kAhead) at_[kAhead]->PrefetchForWalk();
        return *this;
      }
      Iterator operator++(int) {
        Iterator was = *this;
        ++*this;
        return was;
      }
      bool operator==(const Iterator& other) const { return at_ == other.at_; }
      bool operator!=(const Iterator& other) const { return at_ != other.at_; }

     private:
      Storage::const_iterator at_;
      Storage::const_iterator end_;
    };
    explicit InstructionRange(const Storage& storage) : storage_(&storage) {}
    Iterator begin() const { return Iterator(storage_->begin(), storage_->end()); }
    Iterator end() const { return Iterator(storage_->end(), storage_->end()); }
    size_t size() const { return storage_->size(); }
    bool empty() const { return storage_->empty(); }
    HloInstruction* operator[](size_t i) const { return (*storage_)[i].get(); }
    HloInstruction* back() const { return storage_->back().get(); }
    // For a walk by index: starts loading the instruction as far ahead of
    // position `i` as the iterator does.
    void PrefetchAhead(size_t i) const {
      if (i + kPrefetchAhead < size()) (*this)[i + kPrefetchAhead]->PrefetchForWalk();
    }

   private:
    const Storage* storage_;
  };
  InstructionRange instruction_range() const { return InstructionRange(instructions_); }
  int instruction_count() const { return static_cast<int>(instructions_.size()); }
  // Every instruction's local_id() is below this.
  int local_id_bound() const { return next_local_id_; }
  HloInstruction* root() const { return root_; }
  void set_root(HloInstruction* root) { root_ = root; }
  // Parameters by number; entries are null where a number is missing. Of two
  // parameters with one number (which the verifier rejects), the one added
  // last. A parameter numbered below 0 or above 2^20 is left out.
  std::vector<HloInstruction*> parameters() const;
  HloInstruction* FindInstruction(absl::string_view name) const;

  // Adds at the end (or just before `before`); returns the instruction.
  HloInstruction* AddInstruction(std::unique_ptr<HloInstruction> instruction,
                                 HloInstruction* before = nullptr);
  // Adds many instructions at once, each just before its anchor (at the end
  // for a null anchor), keeping the batch's order; linear in the total size.
  void InsertInstructions(
      std::vector<std::pair<HloInstruction*, std::unique_ptr<HloInstruction>>>
          batch);
  // Removes instructions without users that are not the root, a parameter
  // or side-effecting; returns how many went.
  int RemoveDeadInstructions();
  // Puts each replacement in the place of its instruction (not a parameter):
  // the same position in the order, every use (and the root) pointing at
  // it; the replaced instruction is deleted. A replacement brings its own
  // operands. Linear in the computation's size plus the uses moved.
  void ReplaceInstructions(
      std::vector<std::pair<HloInstruction*, std::unique_ptr<HloInstruction>>>
          batch);
  // The same for one instruction, the one at `position` in the order:
  // costs its uses and operands, not the computation's size, and leaves
  // instruction_range() valid (the slot is reused). Returns the replacement.
  // A pass that replaces as it walks thus frees each old instruction as its
  // replacement is made, where a batch holds both sets at once.
  HloInstruction* ReplaceInstructionAt(size_t position,
                                       std::unique_ptr<HloInstruction> replacement);
  // Operands before users; instructions unreachable from the root come
  // after, in text order.
  std::vector<HloInstruction*> MakePostOrder() const;
  // The instructions that call computations, in the computation's order:
  // what a walk of the call graph reads, where a walk of every instruction
  // of a large module misses the cache on each. Kept as instructions are
  // added, replaced and removed and as calls are added, without a walk;
  // only after a calling instruction is put before others, or gains a call
  // once the order no longer follows the local ids, does it cost one.
  std::vector<HloInstruction*> CallingInstructions() const;

  // The `(name: shape, ...) -> shape` signature as written in the text, if
  // any. The printer always writes the signature the instructions imply.
  struct Signature {
    std::vector<std::pair<std::string, Shape>> parameters;
    Shape result;
  };
  bool has_signature() const { return signature_.has_value(); }
  const std::optional<Signature>& signature() const { return signature_; }
  void set_signature(std::optional<Signature> s) { signature_ = std::move(s); }

  std::string ToString(const PrintOptions& options = {}) const;
  // Appends that text to `out`; see HloModule::Print for `flush`.
  void Print(std::string* out, const PrintOptions& options = {},
             const std::function<void(std::string&)>& flush = {}) const;

  // A deep copy named `name`: every instruction copied (renamed by `rename`,
  // which must give module-wide unique names), operands, root and
  // signature rewired to the copies; called computations are shared.
  std::unique_ptr<HloComputation> Clone(
      std::string name,
      const std::function<std::string(absl::string_view)>& rename) const;

 private:
  friend class HloModule;
  friend class HloInstruction;  // NoteFirstCall
  // Print, as HloInstruction's module print (`implied`).
  void Print(std::string* out, const PrintOptions& options,
             const std::function<void(std::string&)>& flush,
             const absl::flat_hash_set<const HloComputation*>* implied) const;
  // Gives `replacement` this computation and a fresh local id, and moves
  // `old`'s uses (and the root) to it and `old` off its operands' users.
  void TakeUsesOf(HloInstruction* old, HloInstruction* replacement);
  // `i`, of this computation, has gained its first called computation.
  void NoteFirstCall(HloInstruction* i);
  // The calling instruction `old` (or none) at the place of the one that
  // `replacement` now takes, which calls or not.
  void NoteReplaced(const HloInstruction* old, HloInstruction* replacement);
  // From here on CallingInstructions() walks the instructions to answer.
  void ForgetCallingInstructions();
  std::string name_;
  HloModule* parent_ = nullptr;
  std::vector<std::unique_ptr<HloInstruction>> instructions_;
  // The kParameter instructions, in the order they were added: parameters() is asked
  // for often, and a walk of a large computation's instructions would miss
  // the cache on nearly every one.
  // Opcodes never change and parameters are never removed, so only adding
  // instructions updates it.
  std::vector<HloInstruction*> parameter_instructions_;
  // While calling_known_, every instruction with called computations, in
  // order. While appended_only_ (each instruction added at the end, none
  // replaced), the order is that of the local ids.
  std::vector<HloInstruction*> calling_;
  bool calling_known_ = true;
  bool appended_only_ = true;
  int next_local_id_ = 0;
  HloInstruction* root_ = nullptr;
  std::optional<Signature> signature_;
  SourceLocation location_;
  std::string execution_thread_;
};

// One entry of the module's input_output_alias={ {0}: (1, {}, may-alias) }:
// the result at `output_index` may (or must) share the buffer of parameter
// `parameter` at `parameter_index`.
struct InputOutputAlias {
  std::vector<int64_t> output_index;
  int64_t parameter = 0;
  std::vector<int64_t> parameter_index;
  bool must_alias = false;
};

// One entry of the module's buffer_donor={ (0, {}) }: a parameter buffer the
// program may reuse for any output.
struct BufferDonor {
  int64_t parameter = 0;
  std::vector<int64_t> parameter_index;
};

// The layouts of the entry computation's parameters and result.
struct ComputationLayout {
  std::vector<Shape> parameters;
  Shape result;
};

class HloModule {
 public:
  explicit HloModule(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  // The file the module was read from, for diagnostics ("<stdin>" for
  // standard input; empty when built in code).
  const std::string& source_name() const { return source_name_; }
  void set_source_name(std::string name) { source_name_ = std::move(name); }
  std::vector<HloComputation*> computations() const;
  size_t computation_count() const { return computations_.size(); }
  HloComputation* entry() const { return entry_; }
  void set_entry(HloComputation* entry) { entry_ = entry; }
  // Adds at the end, or just after `after` (a clone beside its original).
  HloComputation* AddComputation(std::unique_ptr<HloComputation> c,
                                 const HloComputation* after = nullptr);
  // Adds just before `before` (a callee ahead of its caller).
  HloComputation* AddComputationBefore(std::unique_ptr<HloComputation> c,
                                       const HloComputation* before);
  // The same order as calling AddComputation(c, anchor) for each pair in
  // turn, in time linear in the module's computations.
  void AddComputationsAfter(
      std::vector<std::pair<const HloComputation*, std::unique_ptr<HloComputation>>> batch);
  HloComputation* FindComputation(absl::string_view name) const;
  // Callees before callers, the entry last.
  std::vector<HloComputation*> MakeComputationPostOrder() const;

  const std::optional<ComputationLayout>& entry_computation_layout() const {
    return entry_layout_;
  }
  void set_entry_computation_layout(std::optional<ComputationLayout> l) {
    entry_layout_ = std::move(l);
  }
  // From the header's input_output_alias and buffer_donor (which also stay
  // in header_attributes(), verbatim).
  const std::vector<InputOutputAlias>& input_output_aliases() const { return aliases_; }
  void set_input_output_aliases(std::vector<InputOutputAlias> a) { aliases_ = std::move(a); }
  const std::vector<BufferDonor>& buffer_donors() const { return donors_; }
  void set_buffer_donors(std::vector<BufferDonor> d) { donors_ = std::move(d); }
  // Other header attributes (replica_count=..., ...), verbatim and in order.
  const std::vector<HloAttribute>& header_attributes() const { return header_; }
  std::vector<HloAttribute>& mutable_header_attributes() { return header_; }

  int64_t instruction_count() const;
  // Gives every instruction a module-wide unique name: a name an earlier
  // instruction holds gets the first free `.N` suffix (XLA's name uniquer),
  // clear of every name in the module.
  void UniquifyInstructionNames();
  std::string ToString(const PrintOptions& options = {}) const;
  // Appends the module's text to `out`: each computation but those the
  // async shorthand implies (AsyncShorthandOpcode). With `flush`, calls it whenever
  // `out` has grown past 1 MiB, between lines (and not at the end); it is to
  // consume `out` and clear it, so that a large module prints to a file
  // without its whole text in memory.
  void Print(std::string* out, const PrintOptions& options = {},
             const std::function<void(std::string&)>& flush = {}) const;

 private:
  // The computations that only async ops printed as shorthand call: the
  // shorthand implies them, so the module's text leaves them out.
  absl::flat_hash_set<const HloComputation*> ComputationsInShorthand() const;
  // Before or after `anchor`; at the end when `anchor` is not in the module.
  HloComputation* InsertComputation(std::unique_ptr<HloComputation> c,
                                    const HloComputation* anchor, bool after);

  std::string name_;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  // Name lookup in constant time: parsing 100k computations stays linear.
  // A computation's name never changes once it is in the module. The first
  // of two equal names wins, as a search from the front would find it.
  absl::flat_hash_map<std::string, HloComputation*> by_name_;
  HloComputation* entry_ = nullptr;
  std::optional<ComputationLayout> entry_layout_;
  std::vector<HloAttribute> header_;
  std::vector<InputOutputAlias> aliases_;
  std::vector<BufferDonor> donors_;
  std::string source_name_;
};

// The computations fusions call: their values are no buffers of their own.
absl::flat_hash_set<const HloComputation*> FusedComputations(const HloModule& module);

}  // namespace xla_layout

#endif  // HLO_HLO_MODULE_H_
