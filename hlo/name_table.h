// InstructionNameTable: the instructions of one computation by name, as the
// parser resolves operands. Each slot is 8 bytes (an index into the entry
// list and a 32-bit tag of the name's hash), the entries are the
// instructions in the order added, and a name is the instruction's own
// string: at a million instructions the slots take 16 MiB, which stays in
// a 32 MiB L3, where a hash map of (name view, pointer) pairs took 50 MiB.
#ifndef HLO_NAME_TABLE_H_
#define HLO_NAME_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "hlo/hlo_module.h"

namespace xla_layout {

class InstructionNameTable {
 public:
  using HashFunction = uint64_t (*)(absl::string_view);
  // absl's hash of the name.
  static uint64_t DefaultHash(absl::string_view name);

  // `hash` is for tests, which make names collide.
  explicit InstructionNameTable(HashFunction hash = &DefaultHash) : hash_(hash) {}

  // The hash of `name` that the overloads taking `hash` expect: a caller
  // that looks one name up several times computes it once.
  uint64_t Hash(absl::string_view name) const { return hash_(name); }

  // Room for `n` names without growing.
  void Reserve(size_t n);
  // Adds `instruction` under its name(), which must not change while it is
  // in the table. False, and nothing added, when the table holds an
  // instruction of that name.
  bool Insert(HloInstruction* instruction) {
    return Insert(instruction, Hash(instruction->name()));
  }
  // The same, with `hash` == Hash(instruction->name()).
  bool Insert(HloInstruction* instruction, uint64_t hash);
  // The instruction named `name`, or null.
  HloInstruction* Find(absl::string_view name) const { return Find(name, Hash(name)); }
  // The same, with `hash` == Hash(name).
  HloInstruction* Find(absl::string_view name, uint64_t hash) const;
  bool Contains(absl::string_view name) const { return Find(name) != nullptr; }
  // Starts loading the slot where the name of hash `hash` is looked for (a
  // hint only).
  void Prefetch(uint64_t hash) const;
  size_t size() const { return entries_.size(); }
  // Empties the table and frees its memory.
  void Clear();

 private:
  struct Slot {
    uint32_t entry;  // index into entries_, or kEmpty
    uint32_t tag;    // the hash's high half
  };
  static constexpr uint32_t kEmpty = ~uint32_t{0};
  // The slot holding `name`, or the empty slot where it would go.
  size_t Probe(absl::string_view name, uint64_t hash) const;
  // Rebuilds the slots with `capacity` (a power of two) of them.
  void Rehash(size_t capacity);

  HashFunction hash_;
  std::vector<Slot> slots_;  // a power of two, at most half full
  std::vector<HloInstruction*> entries_;
};

}  // namespace xla_layout

#endif  // HLO_NAME_TABLE_H_
