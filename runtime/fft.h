// XLA's fft (internal to runtime/): FFT and IFFT (c64 to c64), RFFT (f32
// to c64) and IRFFT (c64 to f32) over the last len(fft_length) dims, one
// transform per index of the leading dims. Each transform is a direct
// discrete Fourier transform in double, axis by axis from the first
// transformed dim to the last, each sum in increasing index, then rounded
// once to f32: results do not depend on layouts (they may differ from
// XLA's FFT library in the last bits). IFFT and IRFFT scale by 1/N; IRFFT
// reads the half spectrum as Hermitian, as XLA does.
#ifndef RUNTIME_FFT_H_
#define RUNTIME_FFT_H_

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "runtime/ops_util.h"

namespace xla_layout::runtime {

// fft_type, fft_length (1 to 3 dims, matching the shapes) and types.
absl::Status CheckFft(const HloInstruction& fft);
absl::StatusOr<Value> Fft(const HloInstruction& fft, const Value& operand, const Info& out);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_FFT_H_
