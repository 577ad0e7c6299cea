// A computation over scalars (a reduce's to_apply), compiled once into a
// flat list of steps over a register file, so that calling it per element
// allocates nothing. It runs the same element functions as the array ops.
#ifndef RUNTIME_SCALAR_PROGRAM_H_
#define RUNTIME_SCALAR_PROGRAM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/element.h"

namespace xla_layout::runtime {

class ScalarProgram {
 public:
  // Fails, naming the instruction, when `computation` holds anything but
  // scalar parameters, constants, elementwise ops, compare, select, clamp,
  // convert, copy and bitcast (to the same type), tuple and
  // get-tuple-element.
  static absl::StatusOr<ScalarProgram> Compile(const HloComputation& computation);

  int parameter_count() const { return static_cast<int>(parameters_.size()); }
  int result_count() const { return static_cast<int>(results_.size()); }
  // `args` are the parameters in order; writes result_count() values.
  void Run(absl::Span<const Num> args, absl::Span<Num> results) const;

  // A program that is one elementwise op on its two parameters, returned:
  // Run(args) is ApplyBinary(opcode, type, args[0], args[1]), or with the
  // arguments the other way round when `swapped`.
  struct BinaryStep {
    HloOpcode opcode;
    PrimitiveType type;
    bool swapped;
  };
  // That step, or nullopt for any other program (constants, compare,
  // select, clamp, convert, several steps or results).
  std::optional<BinaryStep> AsBinaryStep() const;

 private:
  // Each instruction's registers: one per scalar leaf of its result.
  using Registers = absl::flat_hash_map<const HloInstruction*, std::vector<int>>;

  // Compile's steps, in post order with the constants first.
  absl::Status AddConstant(const HloComputation& computation, const HloInstruction* i,
                           Registers& regs);
  absl::Status AddInstruction(const HloComputation& computation, const HloInstruction* i,
                              Registers& regs, std::vector<const HloInstruction*>& params);
  absl::Status AddStep(const HloComputation& computation, const HloInstruction* i,
                       Registers& regs);

  struct Step {
    HloOpcode opcode;
    PrimitiveType type;      // the operands' type (what the op works on)
    PrimitiveType out_type;  // convert's target
    int out;
    int a = -1, b = -1, c = -1;
    std::string direction;  // compare
    bool total_order = false;  // compare, type=TOTALORDER
  };
  std::vector<int> parameters_;  // register of each parameter
  std::vector<Step> steps_;
  std::vector<int> results_;
  std::vector<Num> constants_;   // registers 0..n-1 hold the constants
  int registers_ = 0;
};

}  // namespace xla_layout::runtime

#endif  // RUNTIME_SCALAR_PROGRAM_H_
