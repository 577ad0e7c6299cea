// What reading a convolution's activations channels-first costs on this
// machine, per convolution class: oneDNN (Debian's libdnnl) runs each class
// (1x1, depthwise, dense 3x3; forward, input gradient, weight gradient) at a
// few representative sizes with its activations NCHW and NHWC, the two
// timed interleaved, and the median of the pairs' differences is the extra
// time of the NCHW run (the difference of the medians would take in the
// load of a shared machine at other moments).
//
// Both run on one thread (OpenMP's barriers make two-thread figures move
// by 10x on a busy machine). A target table's read factor is bytes per byte
// of the operand at the contiguous copy rate (proto/target.proto,
// ConvReadFactor), so the extra seconds become a factor as extra * the
// packing core's one-thread contiguous rate / bytes read: a ratio of two
// one-thread figures, which the table's own rates scale back. Bytes read:
// the activations the class reads (forward: the input; input
// gradient: the output's gradient; weight gradient: both). The factor is at
// least kMinMeasuredReadFactor: a class that runs as fast channels-first
// reads its operand as it comes (0 would mean "always copy"). The weights
// are in the layout oneDNN picks for each run: they are small, and the
// question is the activations. Errors of the library are returned, never
// thrown.
#ifndef TOOLS_CONV_CALIBRATION_H_
#define TOOLS_CONV_CALIBRATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/target.pb.h"

namespace xla_layout::cli {

inline constexpr double kMinMeasuredReadFactor = 0.01;

struct ConvCalibrationOptions {
  int repeat = 5;               // interleaved NCHW/NHWC samples per size
  double budget_seconds = 30;   // samples stop here (each class its share)
  // Divides the sizes' channels and spatial dims (at least 1 each): a test
  // runs the same code on tiny convolutions.
  int shrink = 1;
};

struct ConvClassTiming {
  ConvKind kind;
  ConvPass pass;
  double nchw_seconds = 0, nhwc_seconds = 0;  // medians, summed over sizes
  // The median of the interleaved pairs' differences, summed over sizes.
  double extra_seconds = 0;
  int64_t bytes_read = 0;                     // activations read, summed
  double factor = 0;                          // at contiguous_gbps
  int samples = 0;                            // the fewest any size took
  double contiguous_gbps = 0;                 // the one-thread rate used
};

// Times the nine classes and returns their factors.
absl::StatusOr<std::vector<ConvClassTiming>> MeasureConvolutions(
    const ConvCalibrationOptions& options);

// One report line per class.
std::string ConvTimingReport(const std::vector<ConvClassTiming>& timings);

}  // namespace xla_layout::cli

#endif  // TOOLS_CONV_CALIBRATION_H_
