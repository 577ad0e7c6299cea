#include "runtime/collective_groups.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "runtime/collectives.h"

namespace xla_layout::runtime {
namespace collectives_internal {
namespace {

const HloAttribute* FindRaw(const HloInstruction& i, absl::string_view name) {
  for (const HloAttribute& a : i.raw_attributes()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}


// Reads `[1,2,3]` (with `open` and `close` as the brackets) from the front of `s`.
bool ConsumeInts(absl::string_view& s, char open, char close, std::vector<int64_t>& out) {
  s = absl::StripLeadingAsciiWhitespace(s);
  const size_t end = s.find(close);
  if (s.empty() || s[0] != open || end == absl::string_view::npos) return false;
  const absl::string_view body = absl::StripAsciiWhitespace(s.substr(1, end - 1));
  s.remove_prefix(end + 1);
  out.clear();
  if (body.empty()) return true;
  for (absl::string_view part : absl::StrSplit(body, ',')) {
    int64_t v;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &v)) return false;
    out.push_back(v);
  }
  return true;
}


// XLA's iota replica group list `[G,S]<=[dims]` or `[G,S]<=[dims]T(perm)`.
absl::StatusOr<Groups> IotaGroups(absl::string_view text) {
  absl::string_view s = text;
  std::vector<int64_t> shape, dims, perm;
  bool ok = ConsumeInts(s, '[', ']', shape) &&
            absl::ConsumePrefix(&s, "<=") && ConsumeInts(s, '[', ']', dims);
  if (ok) {
    s = absl::StripLeadingAsciiWhitespace(s);
    if (absl::ConsumePrefix(&s, "T")) {
      ok = ConsumeInts(s, '(', ')', perm);
    } else {
      perm.resize(dims.size());
      std::iota(perm.begin(), perm.end(), 0);
    }
  }
  if (!ok || !absl::StripAsciiWhitespace(s).empty() || shape.size() != 2 || dims.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "replica_groups=", text, " is neither a list of groups nor [G,S]<=[dims]T(perm)"));
  }
  int64_t total = 1;
  for (int64_t d : dims) {
    if (d < 1 || total > kMaxId / d) {
      return absl::InvalidArgumentError(
          absl::StrCat("replica_groups=", text, ": the iota's dims must be positive and small"));
    }
    total *= d;
  }
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t k = 0; k < sorted.size(); ++k) ok &= sorted[k] == static_cast<int64_t>(k);
  if (!ok || perm.size() != dims.size() || shape[0] < 1 || shape[1] < 1 ||
      shape[0] * shape[1] != total) {
    return absl::InvalidArgumentError(absl::StrCat(
        "replica_groups=", text, ": [G,S] must hold the iota's ", total,
        " ids and T() must permute its dims"));
  }
  // Row-major strides of the iota; the groups read the transposed iota
  // row-major, G rows of S.
  std::vector<int64_t> stride(dims.size(), 1), transposed(dims.size());
  for (size_t d = dims.size() - 1; d > 0; --d) stride[d - 1] = stride[d] * dims[d];
  for (size_t d = 0; d < dims.size(); ++d) transposed[d] = dims[perm[d]];
  Groups groups(shape[0]);
  int64_t k = 0;
  ForEachIndex(transposed, [&](const IndexVector& t) {
    int64_t id = 0;
    for (size_t d = 0; d < t.size(); ++d) id += t[d] * stride[perm[d]];
    groups[k++ / shape[1]].push_back(id);
  });
  return groups;
}

}  // namespace

std::string Where(const HloInstruction& i) {
  return absl::StrCat(i.name(), " (", HloOpcodeString(i.opcode()), ")");
}

absl::Status Invalid(const HloInstruction& i, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(Where(i), ": ", why));
}

absl::Status Unsupported(const HloInstruction& i, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(Where(i), ": ", why));
}


bool IsPermute(HloOpcode op) {
  return op == HloOpcode::kCollectivePermute || op == HloOpcode::kCollectivePermuteStart;
}

bool IsReduction(HloOpcode op) {
  return op == HloOpcode::kAllReduce || op == HloOpcode::kAllReduceStart ||
         op == HloOpcode::kReduceScatter;
}

bool IsGather(HloOpcode op) {
  return op == HloOpcode::kAllGather || op == HloOpcode::kAllGatherStart;
}


// XLA's rule: the ops with a use_global_device_ids flag (false when not
// written) read a channel_id as cross-replica-and-partition or flattened
// ids; the others read it as cross-partition.
absl::StatusOr<GroupMode> ModeOf(const HloInstruction& i) {
  const bool channel = i.attributes().rare().channel_id.has_value();
  std::optional<bool> global_ids;
  if (IsReduction(i.opcode()) || IsGather(i.opcode())) {
    global_ids = false;
    if (const HloAttribute* a = FindRaw(i, "use_global_device_ids")) {
      if (a->value != "true" && a->value != "false") {
        return Invalid(i, absl::StrCat("use_global_device_ids=", a->value, " is not a bool"));
      }
      global_ids = a->value == "true";
    }
  }
  if (!channel) {
    if (global_ids.value_or(false)) {
      return Invalid(i, "use_global_device_ids=true needs a channel_id");
    }
    return GroupMode::kCrossReplica;
  }
  if (!global_ids.has_value()) return GroupMode::kCrossPartition;
  return *global_ids ? GroupMode::kFlattenedId : GroupMode::kCrossReplicaAndPartition;
}


// The groups as written: the parser types the list form and keeps the iota
// form as text. None written means one group of all.
absl::StatusOr<Groups> ReplicaGroups(const HloInstruction& i) {
  const auto& typed = i.attributes().rare().replica_groups;
  if (typed.has_value()) return *typed;
  const HloAttribute* raw = FindRaw(i, "replica_groups");
  if (raw == nullptr) return Groups{};
  absl::StatusOr<Groups> groups = IotaGroups(raw->value);
  if (!groups.ok()) return Invalid(i, groups.status().message());
  return groups;
}


// Every id within [0, bound) (bound < 0: any id up to kMaxId) and in one
// group at most.
absl::Status CheckIds(const HloInstruction& i, const Groups& groups, int64_t bound,
                      absl::string_view what) {
  absl::flat_hash_set<int64_t> seen;
  for (const std::vector<int64_t>& g : groups) {
    for (int64_t id : g) {
      if (id < 0 || id > kMaxId || (bound >= 0 && id >= bound)) {
        return Invalid(i, absl::StrCat("replica_groups name ", what, " ", id, bound >= 0
                                       ? absl::StrCat(" but the grid has ", bound, " ", what, "s")
                                       : ""));
      }
      if (!seen.insert(id).second) {
        return Invalid(i, absl::StrCat(what, " ", id, " is in replica_groups twice"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace collectives_internal

using collectives_internal::GroupMode;
using collectives_internal::Groups;
using collectives_internal::CheckIds;
using collectives_internal::Invalid;
using collectives_internal::IsPermute;
using collectives_internal::kMaxId;
using collectives_internal::ModeOf;
using collectives_internal::ReplicaGroups;

namespace {

// The group holding `id` among ids [0, bound) (all of them when no group is
// written).
absl::StatusOr<std::vector<int64_t>> GroupOf(const HloInstruction& i, const Groups& groups,
                                             int64_t bound, int64_t id, absl::string_view what) {
  if (groups.empty()) {
    std::vector<int64_t> all(bound);
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  absl::Status s = CheckIds(i, groups, bound, what);
  if (!s.ok()) return s;
  for (const std::vector<int64_t>& g : groups) {
    if (std::find(g.begin(), g.end(), id) != g.end()) return g;
  }
  return Invalid(i, absl::StrCat(what, " ", id, " is in no group of replica_groups"));
}

absl::Status CheckGrid(const HloInstruction& i, const DeviceGrid& grid, int64_t device) {
  if (grid.replica_count < 1 || grid.partition_count < 1 ||
      grid.replica_count > kMaxId / grid.partition_count) {
    return Invalid(i, absl::StrCat("a grid of ", grid.replica_count, " replicas and ",
                                   grid.partition_count, " partitions"));
  }
  if (device < 0 || device >= grid.device_count()) {
    return Invalid(i, absl::StrCat("device ", device, " is not in the grid of ",
                                   grid.device_count(), " devices"));
  }
  return absl::OkStatus();
}

// The ids a collective names and the space they live in: replicas,
// partitions or (flattened) devices.
enum class IdSpace { kReplica, kPartition, kDevice };
absl::StatusOr<std::pair<IdSpace, Groups>> NamedIds(const HloInstruction& i) {
  if (IsPermute(i.opcode())) {
    const auto& pairs = i.attributes().rare().source_target_pairs;
    return std::make_pair(i.attributes().rare().channel_id ? IdSpace::kPartition
                                                           : IdSpace::kReplica,
                          pairs.value_or(Groups{}));
  }
  absl::StatusOr<GroupMode> mode = ModeOf(i);
  if (!mode.ok()) return mode.status();
  absl::StatusOr<Groups> groups = ReplicaGroups(i);
  if (!groups.ok()) return groups.status();
  const IdSpace space = *mode == GroupMode::kCrossPartition ? IdSpace::kPartition
                        : *mode == GroupMode::kFlattenedId  ? IdSpace::kDevice
                                                            : IdSpace::kReplica;
  return std::make_pair(space, *std::move(groups));
}

}  // namespace

bool IsCollective(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllReduce: case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGather: case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter: case HloOpcode::kAllToAll:
    case HloOpcode::kCollectivePermute: case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectiveBroadcast:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<std::vector<int64_t>> ParticipatingDevices(const HloInstruction& i,
                                                          const DeviceGrid& grid,
                                                          int64_t device) {
  if (!IsCollective(i.opcode()) || IsPermute(i.opcode())) {
    return Invalid(i, "has no replica groups (collective-permute: CollectivePermutePeers)");
  }
  absl::Status s = CheckGrid(i, grid, device);
  if (!s.ok()) return s;
  absl::StatusOr<GroupMode> mode = ModeOf(i);
  if (!mode.ok()) return mode.status();
  absl::StatusOr<Groups> groups = ReplicaGroups(i);
  if (!groups.ok()) return groups.status();
  const int64_t partitions = grid.partition_count;
  const int64_t replica = device / partitions, partition = device % partitions;
  std::vector<int64_t> devices;
  switch (*mode) {
    case GroupMode::kCrossReplica:
    case GroupMode::kCrossReplicaAndPartition: {
      absl::StatusOr<std::vector<int64_t>> replicas =
          GroupOf(i, *groups, grid.replica_count, replica, "replica");
      if (!replicas.ok()) return replicas.status();
      for (int64_t r : *replicas) {
        if (*mode == GroupMode::kCrossReplica) {
          devices.push_back(r * partitions + partition);
          continue;
        }
        for (int64_t p = 0; p < partitions; ++p) devices.push_back(r * partitions + p);
      }
      return devices;
    }
    case GroupMode::kCrossPartition: {
      absl::StatusOr<std::vector<int64_t>> parts =
          GroupOf(i, *groups, partitions, partition, "partition");
      if (!parts.ok()) return parts.status();
      for (int64_t p : *parts) devices.push_back(replica * partitions + p);
      return devices;
    }
    case GroupMode::kFlattenedId:
      if (groups->empty()) return Invalid(i, "use_global_device_ids=true needs replica_groups");
      return GroupOf(i, *groups, grid.device_count(), device, "device");
  }
  return Invalid(i, "unknown group mode");
}

absl::StatusOr<PermutePeers> CollectivePermutePeers(const HloInstruction& i,
                                                    const DeviceGrid& grid, int64_t device) {
  if (!IsPermute(i.opcode())) return Invalid(i, "is not a collective-permute");
  absl::Status s = CheckGrid(i, grid, device);
  if (!s.ok()) return s;
  const int64_t partitions = grid.partition_count;
  const int64_t replica = device / partitions, partition = device % partitions;
  const bool over_partitions = i.attributes().rare().channel_id.has_value();
  const int64_t bound = over_partitions ? partitions : grid.replica_count;
  const int64_t self = over_partitions ? partition : replica;
  auto device_of = [&](int64_t id) {
    return over_partitions ? replica * partitions + id : id * partitions + partition;
  };
  PermutePeers peers;
  for (const std::vector<int64_t>& pair :
       i.attributes().rare().source_target_pairs.value_or(Groups{})) {
    for (int64_t id : pair) {
      if (id < 0 || id >= bound) {
        return Invalid(i, absl::StrCat("source_target_pairs name ", id, " but the grid has ",
                                       bound, over_partitions ? " partitions" : " replicas"));
      }
    }
    if (pair[1] == self) {
      if (peers.source.has_value()) {
        return Invalid(i, absl::StrCat(self, " is the target of two source_target_pairs"));
      }
      peers.source = device_of(pair[0]);
    }
    if (pair[0] == self) peers.targets.push_back(device_of(pair[1]));
  }
  return peers;
}

absl::StatusOr<DeviceGrid> InferDeviceGrid(const HloModule& module) {
  std::optional<int64_t> header_replicas, header_partitions;
  for (const HloAttribute& a : module.header_attributes()) {
    if (a.name != "replica_count" && a.name != "num_partitions") continue;
    int64_t v;
    if (!absl::SimpleAtoi(a.value, &v) || v < 1 || v > kMaxId) {
      return absl::InvalidArgumentError(
          absl::StrCat("the module header's ", a.name, "=", a.value, " is not a count"));
    }
    (a.name == "replica_count" ? header_replicas : header_partitions) = v;
  }
  int64_t needed[3] = {1, 1, 1};  // by IdSpace
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* i : c->instruction_range()) {
      if (!IsCollective(i->opcode())) continue;
      absl::StatusOr<std::pair<IdSpace, Groups>> named = NamedIds(*i);
      if (!named.ok()) return named.status();
      int64_t& n = needed[static_cast<int>(named->first)];
      for (const std::vector<int64_t>& g : named->second) {
        for (int64_t id : g) {
          if (id < 0 || id > kMaxId) return Invalid(*i, absl::StrCat("names device id ", id));
          n = std::max(n, id + 1);
        }
      }
    }
  }
  DeviceGrid grid;
  grid.replica_count = header_replicas.value_or(needed[static_cast<int>(IdSpace::kReplica)]);
  grid.partition_count =
      header_partitions.value_or(needed[static_cast<int>(IdSpace::kPartition)]);
  const int64_t devices = needed[static_cast<int>(IdSpace::kDevice)];
  if (grid.replica_count > kMaxId / grid.partition_count) {
    return absl::InvalidArgumentError(absl::StrCat("a grid of ", grid.replica_count,
                                                   " replicas and ", grid.partition_count,
                                                   " partitions is too large"));
  }
  if (grid.device_count() < devices) {
    if (!header_partitions.has_value()) {
      grid.partition_count = (devices + grid.replica_count - 1) / grid.replica_count;
    } else if (!header_replicas.has_value()) {
      grid.replica_count = (devices + grid.partition_count - 1) / grid.partition_count;
    }
  }
  return grid;
}

}  // namespace xla_layout::runtime
