#include "hlo/name_uniquer.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace xla_layout {

std::string NameUniquer::Unique(absl::string_view base) {
  if (gather_) std::exchange(gather_, nullptr)(*this);
  std::string name(base);
  int64_t& next = next_suffix_[name];
  while (taken_.contains(name)) name = absl::StrCat(base, ".", ++next);
  taken_.insert(owned_.emplace_back(name));
  return name;
}

}  // namespace xla_layout
