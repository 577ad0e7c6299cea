// `hlo-layout calibrate`: measures what the packing core moves per second on
// this machine for each kernel class (contiguous runs, 2-D tiles,
// transposes, sub-byte elements) and writes a target table whose
// cost_model.copy_throughput holds the figures, for the layout pass to
// price its copies with. For a table whose convolutions prefer
// channels-last and whose tiles are optional (a CPU), it also times oneDNN
// convolutions channels-first against channels-last and writes the
// cost_model.conv_read_factors (tools/conv_calibration.h); a table that
// requires tiles (tpu) keeps its factors: this machine's convolutions say
// nothing about that target's.
#ifndef TOOLS_CALIBRATE_COMMAND_H_
#define TOOLS_CALIBRATE_COMMAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/target.pb.h"
#include "tools/conv_calibration.h"

namespace xla_layout::cli {

struct CalibrateOptions {
  int64_t bytes = 32 << 20;  // per buffer, each side
  int repeat = 5;            // timed samples per case; the median is kept
  int threads = 0;           // as the executor runs copies: all threads
  // Samples stop once the calibration has run this long (each case gets
  // its share, and at least one sample).
  double budget_seconds = 10.0;
  ConvCalibrationOptions conv;
};

struct CalibrateResult {
  TargetLayoutConfig table;  // the base table with the measured rates
  std::string report;        // one line per case, with memcpy beside it
  int samples = 0;           // the fewest samples any case took
  // The convolution classes timed; empty when the table keeps its factors.
  std::vector<ConvClassTiming> conv;
};

// Times one relayout per class, each sample interleaved with a memcpy of
// the same bytes (the relayout command's method), and fills
// `base.cost_model.copy_throughput` with the medians. Takes `repeat` samples
// per case, fewer when `budget_seconds` runs out.
absl::StatusOr<CalibrateResult> RunCalibrate(TargetLayoutConfig base,
                                             const CalibrateOptions& options);

}  // namespace xla_layout::cli

#endif  // TOOLS_CALIBRATE_COMMAND_H_
