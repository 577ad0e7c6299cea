#include "hlo/name_table.h"

#include "absl/hash/hash.h"

namespace xla_layout {
namespace {

constexpr size_t kMinCapacity = 16;

// The smallest power of two that holds `n` names at most half full.
size_t CapacityFor(size_t n) {
  size_t capacity = kMinCapacity;
  while (capacity / 2 < n) capacity *= 2;
  return capacity;
}

}  // namespace

uint64_t InstructionNameTable::DefaultHash(absl::string_view name) {
  return absl::Hash<absl::string_view>{}(name);
}

void InstructionNameTable::Reserve(size_t n) {
  if (n > entries_.capacity()) entries_.reserve(n);
  if (CapacityFor(n) > slots_.size()) Rehash(CapacityFor(n));
}

size_t InstructionNameTable::Probe(absl::string_view name, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  const uint32_t tag = static_cast<uint32_t>(hash >> 32);
  // Linear probing: at most half full, so a run is short, and the slots
  // after the first are usually in its cache line.
  for (size_t at = hash & mask;; at = (at + 1) & mask) {
    const Slot& s = slots_[at];
    if (s.entry == kEmpty) return at;
    if (s.tag == tag && entries_[s.entry]->name() == name) return at;
  }
}

bool InstructionNameTable::Insert(HloInstruction* instruction, uint64_t hash) {
  if (CapacityFor(entries_.size() + 1) > slots_.size()) {
    Rehash(CapacityFor(entries_.size() + 1));
  }
  Slot& s = slots_[Probe(instruction->name(), hash)];
  if (s.entry != kEmpty) return false;
  s = {static_cast<uint32_t>(entries_.size()), static_cast<uint32_t>(hash >> 32)};
  entries_.push_back(instruction);
  return true;
}

HloInstruction* InstructionNameTable::Find(absl::string_view name, uint64_t hash) const {
  if (slots_.empty()) return nullptr;
  const Slot& s = slots_[Probe(name, hash)];
  return s.entry == kEmpty ? nullptr : entries_[s.entry];
}

void InstructionNameTable::Prefetch(uint64_t hash) const {
  if (slots_.empty()) return;
  __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]);
}

void InstructionNameTable::Clear() {
  std::vector<Slot>().swap(slots_);
  std::vector<HloInstruction*>().swap(entries_);
}

void InstructionNameTable::Rehash(size_t capacity) {
  slots_.assign(capacity, Slot{kEmpty, 0});
  const size_t mask = capacity - 1;
  for (size_t k = 0; k < entries_.size(); ++k) {
    const uint64_t hash = hash_(entries_[k]->name());
    size_t at = hash & mask;
    while (slots_[at].entry != kEmpty) at = (at + 1) & mask;
    slots_[at] = {static_cast<uint32_t>(k), static_cast<uint32_t>(hash >> 32)};
  }
}

}  // namespace xla_layout
