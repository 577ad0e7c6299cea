// Seeded random HLO modules for property tests (testonly): chains and DAGs
// of array ops on one element type per module (pred from compares), 1 to 3
// parameters of rank 1 to 3 (and two more per dot), values that sometimes
// write a random layout, a root that copies the last value or tuples two,
// and sometimes an entry_computation_layout. The options choose the ops, types, sizes and
// layouts, so that each test draws the modules its property needs: the
// defaults are the executor's (every op it runs, odd sizes that force
// padding under tiles, tiled layouts with repeated tiles, '*' and E(4));
// the layout pass's test takes f32 modules with large dims and bare dim
// orders, whose while loops share bodies. The same seed and options give
// the same text.
#ifndef HLO_RANDOM_MODULE_H_
#define HLO_RANDOM_MODULE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace xla_layout {

// What one op of a module does with a random earlier value `a` (every value
// stays available to later ops). Ops that do not apply to `a` (a rank or a
// pred they cannot take) add nothing.
enum class RandomOp {
  kBinary,              // one of binary_ops (and/or on pred) with a partner
                        // of a's type and dims, or a itself
  kUnary,               // tanh (floats), negate or abs; not on pred
  kNegate,              // not on pred
  kCopy,
  kCompareSelect,       // compare a with a partner, select between the two
  kConvertRoundTrip,    // to f32, s32, bf16, s8, u4 or f64 and back
  kTranspose,           // a random permutation
  kReshape,             // to [n] or [1,n]; a rank-2 a sometimes otherwise
                        // (see reshape_inserts_unit_dim)
  kBroadcast,           // a new dim of broadcast_size anywhere (rank < 3)
  kSlice,               // the first half of each dim
  kStridedSlice,        // from 1 (dims > 2) with stride 2 (dims > 4)
  kPad,                 // low (sometimes negative), high and interior
  kConcatenate,         // with a partner along a random dim
  kReverse,             // a random subset of dims
  kDynamicSlice,        // half of each dim, starts sometimes out of range
  kDynamicUpdateSlice,  // a's own first half, written back at random starts
  kIota,                // added to a; not on pred
  kDot,                 // of two fresh rank-2 parameters (dot_sizes)
  kReduce,              // one dim with add (and on pred); rank >= 2
  kWhile,               // a loop negating a three times; not on pred
  kCallee,              // a fusion, call or conditional around an
                        // elementwise op; not on pred
  // Not drawn by default (the executor's multi-device and vendor paths):
  kGather,              // rows of a by constant indices, some out of range
  kScatter,             // two rows added into a at constant indices, one
                        // sometimes out of range (its window dropped)
  kAllReduce,           // over every replica, with add (and on pred)
  kAllGather,           // along dim 0, over every replica
  kCustomCall,          // a vendor call of a's shape, on a
};

struct RandomModuleOptions {
  // One is drawn per module; repeat one to weight it.
  std::vector<std::string> element_types = {"f32", "bf16", "f16", "f64", "s32", "s8",
                                            "s4",  "u4",   "u8",  "s64", "u32", "f32"};
  // Each dim of a parameter is drawn from these.
  std::vector<int64_t> dim_sizes = {1, 2, 3, 5, 7, 8, 13, 16, 33};
  // The number of ops drawn, from min_ops to max_ops.
  int min_ops = 3;
  int max_ops = 14;
  // Each op is drawn from these; repeat one to weight it.
  std::vector<RandomOp> ops = {
      RandomOp::kBinary,       RandomOp::kBinary,           RandomOp::kUnary,
      RandomOp::kCompareSelect, RandomOp::kConvertRoundTrip, RandomOp::kTranspose,
      RandomOp::kReshape,      RandomOp::kBroadcast,        RandomOp::kStridedSlice,
      RandomOp::kPad,          RandomOp::kConcatenate,      RandomOp::kReverse,
      RandomOp::kDynamicSlice, RandomOp::kDynamicUpdateSlice, RandomOp::kIota,
      RandomOp::kDot,          RandomOp::kReduce,           RandomOp::kWhile,
      RandomOp::kCallee};
  std::vector<std::string> binary_ops = {"add", "subtract", "multiply", "maximum", "minimum"};
  std::vector<int64_t> dot_sizes = {1, 3, 8, 17, 33};
  int64_t broadcast_size = 3;
  // kReshape on a rank-2 [a,b]: sometimes [a,1,b] when set, else [b,a].
  bool reshape_inserts_unit_dim = false;
  // One value in written_layout_one_in writes a random layout; parameters
  // too when parameters_write_layouts.
  int written_layout_one_in = 4;
  bool parameters_write_layouts = false;
  // One module in entry_layout_one_in has an entry_computation_layout.
  int entry_layout_one_in = 2;
  // Random layouts: a dim order with tiles (repeated, with '*', up to 9)
  // and, for s4/u4, sometimes E(4) when set; a bare dim order otherwise.
  bool tiled_layouts = true;
  // While loops over values of the same dims sometimes share their
  // condition and body (a call graph the layout pass flattens), and a
  // loop's state and body value sometimes write random layouts.
  bool loops_share_bodies = false;
  // replica_count written in the header when above 1 (collectives then run
  // over that many devices).
  int replicas = 1;
};

// The module's text.
std::string RandomHloModule(uint64_t seed, const RandomModuleOptions& options = {});

}  // namespace xla_layout

#endif  // HLO_RANDOM_MODULE_H_
