// Where the packing core's kernels take a different path on Intel than on
// AMD: each choice was measured on both vendors' machines (docs/benchmarks.md
// names the runs), and each reads the CPU's vendor once.
#ifndef XLA_LAYOUT_KERNEL_TUNING_H_
#define XLA_LAYOUT_KERNEL_TUNING_H_

namespace xla_layout::internal {

// Whether a transpose in cache claims with PREFETCHW, a strip ahead, the
// destination lines the next strip writes. On Intel (Emerald Rapids) that
// hides the misses of writes that go to each destination row in turn, once
// the rows span more than 512 KiB (below, f32[256,256] measured no faster);
// on Zen 5 write prefetches in cache measured slower (docs/benchmarks.md,
// "On Emerald Rapids").
inline bool ClaimsDestinationAhead() {
  static const bool intel = __builtin_cpu_is("intel");
  return intel;
}

// Whether streaming transposes sweep 16 source rows at a time with no
// fetch: the plain strips once there are more than 256 rows, and the
// grouped kernel of narrow tiles on each call's rows; otherwise they sweep
// 256 rows (or a call's) fetching each tile's lines ahead. On Intel the 16
// rows of a strip are then read whole, streams the hardware prefetcher
// follows; on Zen 5 strips of 256 measured best (docs/benchmarks.md, "On
// Zen 5" and "On the Xeon of stop 46" have the runs).
inline bool StreamsInShortStrips() {
  static const bool intel = __builtin_cpu_is("intel");
  return intel;
}

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_KERNEL_TUNING_H_
