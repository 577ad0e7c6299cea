#include "bench/replay_summary.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xla_layout/relayout.h"

namespace xla_layout::bench {
namespace {

// The cache sizes that class a copy: L2 per core and the L3, from sysconf,
// the L3 capped at 32 MiB (some virtual machines report ten times the real
// one: 320 MiB here for lscpu's 32 MiB).
std::pair<int64_t, int64_t> CacheSizes() {
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  constexpr int64_t kMaxL3 = int64_t{32} << 20;
  return {l2 > 0 ? l2 : int64_t{1} << 20, l3 > 0 ? std::min<int64_t>(l3, kMaxL3) : kMaxL3};
}

// The processor, as /proc/cpuinfo names it with its family and model
// numbers: ratios to memcpy move with them (Zen 5's memcpy of 16-256 KiB
// outruns any vector copy; Zen 4's did not), so runs are compared on one.
std::string CpuName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, name = "unknown", family, model;
  auto value = [](const std::string& l) {
    const size_t colon = l.find(':');
    return colon == std::string::npos ? std::string() : l.substr(colon + 2);
  };
  while (std::getline(in, line) && line.find_first_not_of(" \t") != std::string::npos) {
    if (line.rfind("model name", 0) == 0) name = value(line);
    if (line.rfind("cpu family", 0) == 0) family = value(line);
    if (line.rfind("model\t", 0) == 0) model = value(line);
  }
  return absl::StrCat(name, " (family ", family, ", model ", model, ")");
}

// A replayed copy's class, by its counters: 0 L2, 1 L3, 2 larger (by
// source plus destination against the caches), 3 padded (a destination
// over twice its elements, whatever its size).
int ClassOf(const benchmark::UserCounters& k, int64_t l2_bytes, int64_t l3_bytes) {
  if (k.at("dst_bytes").value > 2 * k.at("element_bytes").value) return 3;
  const double footprint = k.at("footprint").value;
  return footprint <= l2_bytes ? 0 : footprint <= l3_bytes ? 1 : 2;
}

// The ratio to memcpy issue 31 asks of a class (none beyond L3).
double GoalOf(int cls) { return cls == 0 ? 0.7 : cls == 1 ? 0.5 : 0; }

// Whether a reference that moves the copy some way explains why the core
// misses `goal`: it misses it too, and the core is at most a tenth faster
// than it. A reference the core outruns by more moves the copy in a worse
// way than the core does, and says nothing of what bounds the core.
bool Explains(double reference_s, double core_s, double memcpy_s, double goal) {
  return memcpy_s < goal * reference_s && core_s >= 0.9 * reference_s;
}

}  // namespace

void ReplaySummary(const std::vector<Run>& runs, std::ostream& out) {
  const auto [l2_bytes, l3_bytes] = CacheSizes();
  struct Sum {
    int64_t copies = 0, distinct = 0, at_goal = 0, at_goal_vcopy = 0;
    double bytes = 0, core = 0, memcpy = 0, floor = 0, vcopy = 0;
  };
  std::map<int, Sum> sums;  // 0 L2, 1 L3, 2 larger, 3 padded, 4 total
  std::map<int, Sum> l2_kinds;  // the L2 class by CopyClass
  std::vector<std::pair<double, std::string>> lost;
  for (const Run& run : runs) {
    if (run.benchmark_name().rfind("replay/", 0) != 0) continue;
    const auto& k = run.counters;
    const double count = k.at("count").value;
    const double core = k.at("core_s").value, memcpy = k.at("memcpy_s").value;
    const double vcopy = k.at("vcopy_s").value;
    const int cls = ClassOf(k, l2_bytes, l3_bytes);
    const double goal = GoalOf(cls);
    Sum* kind = cls == 0 ? &l2_kinds[static_cast<int>(k.at("copy_class").value)] : nullptr;
    for (Sum* sum : {&sums[cls], &sums[4], kind}) {
      if (sum == nullptr) continue;
      Sum& s = *sum;
      s.copies += static_cast<int64_t>(count);
      s.distinct += 1;
      s.at_goal += memcpy >= goal * core;
      s.at_goal_vcopy += vcopy >= goal * core;
      s.bytes += 2 * k.at("element_bytes").value * count;
      s.core += core * count;
      s.memcpy += memcpy * count;
      s.floor += k.at("floor_s").value * count;
      s.vcopy += vcopy * count;
    }
    lost.emplace_back((core - memcpy) * count,
                      absl::StrFormat("%s  %.2fx (%.2fx of vcopy) x%d (%s)",
                                      run.benchmark_name().substr(7), memcpy / core,
                                      vcopy / core, static_cast<int>(count),
                                      run.report_label));
  }
  if (sums.empty()) return;
  out << "\nReplayed copies (the layout pass's, every module and target), one thread, "
         "against memcpy of the same bytes in the same run:\n";
  out << absl::StrFormat("%-30s %6s %8s %6s %6s %10s %10s %10s %10s %10s %7s %7s %7s\n",
                         "class (src+dst)", "copies", "distinct", "atgoal", "vc-at", "MB moved",
                         "core ms", "memcpy ms", "floor ms", "vcopy ms", "ratio", "floor",
                         "vcopy");
  const char* names[] = {"L2 (<= L2)", "L3 (<= L3)", "larger", "padded (dst > 2x elements)",
                         "total"};
  for (const auto& [g, s] : sums) {
    const auto per_core = [&](double t) { return s.core > 0 ? t / s.core : 0; };
    out << absl::StrFormat(
        "%-30s %6d %8d %6s %6s %10.2f %10.3f %10.3f %10.3f %10.3f %6.2fx %6.2fx %6.2fx\n",
        names[g], s.copies, s.distinct, g < 2 ? absl::StrCat(s.at_goal) : std::string("-"),
        g < 2 ? absl::StrCat(s.at_goal_vcopy) : std::string("-"), s.bytes / 1e6,
        s.core * 1e3, s.memcpy * 1e3, s.floor * 1e3, s.vcopy * 1e3, per_core(s.memcpy),
        per_core(s.floor), per_core(s.vcopy));
  }
  out << absl::StrFormat(
      "L2 = %d, L3 = %d bytes; ratio = memcpy time / core time, floor = (memcpy + memset of "
      "the padding) / core, vcopy = a plain vector copy of the same bytes / core; atgoal = "
      "distinct copies at >= 0.7x (L2), 0.5x (L3) of memcpy, vc-at the same of vcopy; cpu: %s\n",
      l2_bytes, l3_bytes, CpuName());
  out << "L2 class by the kind of kernel that moves most bytes (RelayoutPlan::Classify): distinct "
         "copies, at goal, ratio to memcpy and to vcopy:";
  for (const auto& [kind, s] : l2_kinds) {
    out << absl::StrFormat("  %s %d, %d, %.2fx, %.2fx;",
                           kind < 0 ? absl::string_view("unplanned")
                                    : CopyClassName(static_cast<CopyClass>(kind)),
                           s.distinct, s.at_goal, s.core > 0 ? s.memcpy / s.core : 0,
                           s.core > 0 ? s.vcopy / s.core : 0);
  }
  out << "\n";
  std::sort(lost.rbegin(), lost.rend());
  out << "most time lost against memcpy (seconds x count):\n";
  for (size_t i = 0; i < lost.size() && i < 10; ++i) {
    out << absl::StrFormat("  %9.1f us  %s\n", lost[i].first * 1e6, lost[i].second);
  }
}

void ReplayMisses(const std::vector<Run>& runs, std::ostream& out) {
  const auto [l2_bytes, l3_bytes] = CacheSizes();
  struct Misses {
    int below = 0, floor = 0, vcopy = 0, traffic = 0, permute = 0;
    int with_traffic = 0, near_traffic = 0, beats_traffic = 0;
    int with_permute = 0, beats_permute = 0;
    std::vector<std::string> open;
  };
  Misses classes[2];
  bool any = false;
  for (const Run& run : runs) {
    if (run.benchmark_name().rfind("replay/", 0) != 0) continue;
    any = true;
    const auto& k = run.counters;
    const int cls = ClassOf(k, l2_bytes, l3_bytes);
    if (cls > 1) continue;
    Misses& m = classes[cls];
    const double goal = GoalOf(cls);
    const double core = k.at("core_s").value, memcpy = k.at("memcpy_s").value;
    const auto traffic = k.find("traffic_s");
    const bool has_traffic = traffic != k.end();
    m.with_traffic += has_traffic;
    m.near_traffic += has_traffic && core <= traffic->second.value / 0.9;
    m.beats_traffic += has_traffic && core < traffic->second.value;
    const auto permute = k.find("permute_s");
    const bool has_permute = permute != k.end();
    m.with_permute += has_permute;
    m.beats_permute += has_permute && core < permute->second.value;
    if (memcpy >= goal * core) continue;
    ++m.below;
    if (memcpy < goal * k.at("floor_s").value) {
      ++m.floor;
    } else if (memcpy < goal * k.at("vcopy_s").value) {
      ++m.vcopy;
    } else if (has_traffic && Explains(traffic->second.value, core, memcpy, goal)) {
      ++m.traffic;
    } else if (has_permute && Explains(permute->second.value, core, memcpy, goal)) {
      ++m.permute;
    } else {
      const std::string name = run.benchmark_name().substr(7);
      std::string refs;
      if (has_traffic) {
        absl::StrAppendFormat(&refs, " traffic %.2fx", memcpy / traffic->second.value);
      }
      if (has_permute) {
        absl::StrAppendFormat(&refs, " permute %.2fx", memcpy / permute->second.value);
      }
      m.open.push_back(absl::StrFormat("%s %.2fx%s", name.substr(0, name.rfind("/iterations")),
                                       memcpy / core, refs));
    }
  }
  if (!any) return;
  out << "Below goal, by the first reference below it too (floor: memcpy + memset of the "
         "padding; vcopy: a plain vector copy; traffic: the copy's own lines or runs, moved "
         "alone, replay_traffic.h and plan_traffic.h; permute: the plan's 8x8 blocks "
         "transposed by permutes alone, plan_traffic.h; a reference counts where the core is "
         "at most a tenth faster than it); copies with a traffic reference, the core at >= 0.9x "
         "of it, and faster than it; copies with the permute blocks, and the core faster than "
         "them:\n";
  const char* names[] = {"L2 (goal 0.7x)", "L3 (goal 0.5x)"};
  for (int c = 0; c < 2; ++c) {
    const Misses& m = classes[c];
    out << absl::StrFormat(
        "  %-15s below %d: floor %d, vcopy %d, traffic %d, permute %d, open %d;  with traffic "
        "%d, core near it %d, faster %d;  with permute %d, core faster %d\n",
        names[c], m.below, m.floor, m.vcopy, m.traffic, m.permute,
        static_cast<int>(m.open.size()), m.with_traffic, m.near_traffic, m.beats_traffic,
        m.with_permute, m.beats_permute);
    for (const std::string& open : m.open) out << "    open: " << open << "\n";
  }
}

}  // namespace xla_layout::bench
