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

// Whether a streaming transpose of more than 256 source rows goes in strips
// of 16 rows with no fetch, where it otherwise takes strips of 256 that
// fetch ahead. On Intel (the Xeon of stop 46) each 16-row strip's rows are
// then read whole, 16 streams the hardware follows: f32[4096,4096] to {0,1}
// took 7.1-8.2 ms against 11.5-12.3 ms, one thread; on Zen 5 strips of 256
// measured best (docs/benchmarks.md, "On Zen 5"). The grouped kernel of
// narrow tiles then sweeps its rows 16 at a time too: f32[4096,4096] to
// {0,1:T(4,128)} 7.9-9.1 ms -> 6.7-7.2 ms.
inline bool StreamsInShortStrips() {
  static const bool intel = __builtin_cpu_is("intel");
  return intel;
}

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_KERNEL_TUNING_H_
