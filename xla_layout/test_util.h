// Random shapes and layouts for property tests, and the oracle of the
// packing core's tests (testonly).
#ifndef XLA_LAYOUT_TEST_UTIL_H_
#define XLA_LAYOUT_TEST_UTIL_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla_layout/isa.h"
#include "xla_layout/relayout.h"
#include "xla_layout/shape.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {

struct RandomShapeOptions {
  int max_rank = 5;
  int64_t max_dim = 7;
  int max_tile_levels = 3;
  int64_t max_tile = 5;
  bool allow_combine = true;   // '*' entries
  bool allow_attributes = true;  // E, S, L, M on top of tiles
  // Layouts larger than this are drawn again; a shape with more elements
  // gets an untiled layout.
  int64_t max_slots = 4096;
  // Element types to draw from; empty means a mix of all byte sizes.
  std::vector<PrimitiveType> types;
};

// Parses shape text that the test knows is valid; a parse error fails the
// test (and yields an empty shape).
Shape ParseTestShape(absl::string_view text);

// A random array shape with a random valid layout.
Shape RandomArrayShape(std::mt19937_64& rng,
                       const RandomShapeOptions& options = {});

// A random valid layout (same rules) for the dims and type of `shape`; at
// most max_slots slots when the shape has no more elements.
Layout RandomLayoutFor(std::mt19937_64& rng, const Shape& shape,
                       const RandomShapeOptions& options = {});

// The SIMD paths this machine can run (avx2, then avx512), and the same
// after the scalar path: tests compare every path a plan can take here.
std::vector<Isa> SimdPathsHere();
std::vector<Isa> IsaPathsHere();

// `bytes` of memory that end where an unreadable page begins (kBeforeGuard)
// or start where one ends (kAfterGuard), so that a kernel reading or
// writing past either end faults: ASan does not check the loads and stores
// of intrinsics.
class GuardedBytes {
 public:
  enum Side { kBeforeGuard, kAfterGuard };
  GuardedBytes(size_t bytes, Side side);
  ~GuardedBytes();
  GuardedBytes(const GuardedBytes&) = delete;
  GuardedBytes& operator=(const GuardedBytes&) = delete;
  uint8_t* data() { return data_; }
  absl::Span<uint8_t> span() { return absl::MakeSpan(data_, bytes_); }

 private:
  size_t bytes_ = 0, size_ = 0;
  uint8_t* base_ = nullptr;
  uint8_t* data_ = nullptr;
};

// Fills `bytes` from `rng`: a relayout source whose padding is garbage too.
void FillRandomBytes(std::mt19937_64& rng, absl::Span<uint8_t> bytes);

// The oracle of a relayout: `out` (in `dst`) must hold, in every slot of an
// element, that element's bytes from `in` (in `src`), found through the
// index math; every padding slot of `dst` holds `fill` repeated (zeros when
// empty). The error names the first wrong slot and its element.
absl::Status CheckRelayout(const TiledLayout& src, const uint8_t* in,
                           const TiledLayout& dst, const uint8_t* out,
                           absl::Span<const uint8_t> fill);

// Runs `plan` (from `src` to `dst`) on a source of random bytes drawn from
// `rng` into a destination prefilled with 0x5A, and checks the result with
// CheckRelayout: the plan must have been made with padding value `fill`.
absl::Status RunAndCheckRelayout(const RelayoutPlan& plan, const Shape& src, const Shape& dst,
                                 absl::Span<const uint8_t> fill, std::mt19937_64& rng);

// The plan from `src` to `dst` with one thread on `isa`, padding value
// `fill` and streaming stores as `streaming` says.
absl::StatusOr<RelayoutPlan> OneThreadPlan(
    const Shape& src, const Shape& dst, Isa isa, absl::Span<const uint8_t> fill,
    RelayoutOptions::Streaming streaming = RelayoutOptions::Streaming::kAuto);

// Plans the relayout from shape text `src` to `dst` with one thread on
// `isa` and padding value `fill`, then runs and checks it as
// RunAndCheckRelayout does; the error names both shapes and the path.
// `describe`, when not null, gets the plan's Describe() (which kernel took
// it), also when the check fails.
absl::Status CheckOneThreadRelayout(absl::string_view src, absl::string_view dst, Isa isa,
                                    absl::Span<const uint8_t> fill, std::mt19937_64& rng,
                                    std::string* describe = nullptr);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_TEST_UTIL_H_
