#include "runtime/fft.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace xla_layout::runtime {
namespace {

using Complex = std::complex<double>;

struct FftSpec {
  std::string type;             // FFT, IFFT, RFFT or IRFFT
  std::vector<int64_t> length;  // fft_length
};

absl::StatusOr<FftSpec> SpecOf(const HloInstruction& fft) {
  FftSpec spec;
  std::optional<std::string> type = RawAttr(fft, "fft_type");
  std::optional<std::string> length = RawAttr(fft, "fft_length");
  if (!type || !length) return OpError(fft, "needs fft_type and fft_length");
  spec.type = *type;
  absl::string_view text = *length;
  if (!absl::ConsumePrefix(&text, "{") || !absl::ConsumeSuffix(&text, "}")) {
    return OpError(fft, "fft_length must be {n,...}");
  }
  for (absl::string_view n : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    int64_t v;
    if (!absl::SimpleAtoi(n, &v) || v <= 0) return OpError(fft, "fft_length holds a bad size");
    spec.length.push_back(v);
  }
  if (spec.length.empty() || spec.length.size() > 3) {
    return OpError(fft, "fft_length must have 1 to 3 sizes");
  }
  if (spec.type != "FFT" && spec.type != "IFFT" && spec.type != "RFFT" && spec.type != "IRFFT") {
    return OpError(fft, absl::StrCat("unknown fft_type ", spec.type));
  }
  return spec;
}

Complex LoadComplex(const Value& v, absl::Span<const int64_t> index) {
  const uint64_t bits = BitsAt(v, index);
  return {FromBits(bits & 0xffffffffu, F32).f, FromBits(bits >> 32, F32).f};
}

uint64_t ComplexBits(Complex c) {
  Num re, im;
  re.f = c.real();
  im.f = c.imag();
  return ToBits(Normalize(re, F32), F32) | (ToBits(Normalize(im, F32), F32) << 32);
}

// e^(-+2 pi i m / n); quarter turns exactly, so that a transform of small
// integers gives exact zeros.
Complex Twiddle(int64_t m, int64_t n, bool inverse) {
  const double sign = inverse ? 1 : -1;
  if ((4 * m) % n == 0) {
    static constexpr double kCos[] = {1, 0, -1, 0};
    static constexpr double kSin[] = {0, 1, 0, -1};
    const int64_t q = (4 * m) / n;
    return {kCos[q], sign * kSin[q]};
  }
  const double angle = sign * 2 * M_PI * static_cast<double>(m) / static_cast<double>(n);
  return {std::cos(angle), std::sin(angle)};
}

// In-place DFT of `data` (row-major over `dims`) along every axis, first to
// last, each output a sum in increasing input index.
void Transform(std::vector<Complex>& data, const std::vector<int64_t>& dims, bool inverse) {
  int64_t inner = 1;
  for (int64_t d : dims) inner *= d;
  for (size_t axis = 0; axis < dims.size(); ++axis) {
    const int64_t n = dims[axis];
    inner /= n;
    const int64_t outer = static_cast<int64_t>(data.size()) / (n * inner);
    std::vector<Complex> line(n), result(n);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;
        for (int64_t k = 0; k < n; ++k) line[k] = data[base + k * inner];
        for (int64_t k = 0; k < n; ++k) {
          Complex sum = 0;
          for (int64_t j = 0; j < n; ++j) sum += line[j] * Twiddle((j * k) % n, n, inverse);
          result[k] = sum;
        }
        for (int64_t k = 0; k < n; ++k) data[base + k * inner] = result[k];
      }
    }
  }
}

}  // namespace

absl::Status CheckFft(const HloInstruction& fft) {
  absl::StatusOr<FftSpec> spec = SpecOf(fft);
  if (!spec.ok()) return spec.status();
  const PrimitiveType in = fft.operand(0)->shape().element_type();
  const PrimitiveType out = fft.shape().element_type();
  const bool real_in = spec->type == "RFFT", real_out = spec->type == "IRFFT";
  if (in != (real_in ? F32 : C64) || out != (real_out ? F32 : C64)) {
    return OpError(fft, "the executor runs fft on f32 and c64 only");
  }
  // The transformed dims are fft_length (RFFT's result and IRFFT's operand
  // end in n/2 + 1); the leading dims agree. Fft reads and writes by these.
  const Shape& a = fft.operand(0)->shape();
  const Shape& r = fft.shape();
  const int l = static_cast<int>(spec->length.size());
  if (a.rank() != r.rank() || r.rank() < l) {
    return OpError(fft, "fft_length has more sizes than the result has dims, or the operand "
                        "and result ranks differ");
  }
  for (int d = 0; d < r.rank(); ++d) {
    int64_t want_in = a.dimensions(d), want_out = a.dimensions(d);
    if (d >= r.rank() - l) {
      const int64_t n = spec->length[d - (r.rank() - l)];
      const bool last = d == r.rank() - 1;
      want_in = last && real_out ? n / 2 + 1 : n;
      want_out = last && real_in ? n / 2 + 1 : n;
    }
    if (a.dimensions(d) != want_in || r.dimensions(d) != want_out) {
      return OpError(fft, absl::StrCat("dim ", d, " of the operand (", a.dimensions(d),
                                       ") or the result (", r.dimensions(d),
                                       ") does not fit fft_length"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> Fft(const HloInstruction& fft, const Value& operand, const Info& out) {
  absl::StatusOr<FftSpec> spec = SpecOf(fft);
  if (!spec.ok()) return spec.status();
  const std::vector<int64_t>& len = spec->length;
  const int rank = out->rank(), l = static_cast<int>(len.size());
  const bool rfft = spec->type == "RFFT", irfft = spec->type == "IRFFT";
  const bool inverse = spec->type == "IFFT" || irfft;
  std::vector<int64_t> batch(out->dims().begin(), out->dims().end() - l);
  int64_t total = 1;
  for (int64_t n : len) total *= n;
  absl::StatusOr<Value> result = Value::Allocate(out);
  if (!result.ok()) return result;
  std::vector<Complex> data(total);
  ForEachIndex(batch, [&](const IndexVector& b) {
    IndexVector index(rank, 0);
    for (size_t d = 0; d < b.size(); ++d) index[d] = b[d];
    // The full spectrum (or signal) of this batch entry, row-major.
    ForEachIndex(len, [&](const IndexVector& t) {
      int64_t flat = 0;
      for (int d = 0; d < l; ++d) flat = flat * len[d] + t[d];
      const int64_t half = len[l - 1] / 2 + 1;
      bool conjugate = false;
      for (int d = 0; d < l; ++d) index[rank - l + d] = t[d];
      if (irfft && t[l - 1] >= half) {
        // Hermitian: X[k] = conj(X[-k mod N]) on every transformed axis.
        conjugate = true;
        for (int d = 0; d < l; ++d) index[rank - l + d] = (len[d] - t[d]) % len[d];
      }
      Complex c = rfft ? Complex(At(operand, index).f, 0) : LoadComplex(operand, index);
      data[flat] = conjugate ? std::conj(c) : c;
    });
    Transform(data, len, inverse);
    ForEachIndex(out->dims().subspan(rank - l), [&](const IndexVector& t) {
      int64_t flat = 0;
      for (int d = 0; d < l; ++d) flat = flat * len[d] + t[d];
      for (int d = 0; d < l; ++d) index[rank - l + d] = t[d];
      Complex c = data[flat];
      if (inverse) c /= static_cast<double>(total);
      const int64_t slot = out->Slot(index);
      if (irfft) {
        Num re;
        re.f = c.real();
        out->Store(result->mutable_data(), slot, Normalize(re, F32));
      } else {
        out->StoreBits(result->mutable_data(), slot, ComplexBits(c));
      }
    });
  });
  return result;
}

}  // namespace xla_layout::runtime
