#include "runtime/dot_kernel.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "xla_layout/memory.h"

namespace xla_layout::runtime {
namespace {

constexpr int kMr = 4;  // rows of a register block
constexpr int kNr = 8;  // columns

// Whether coordinate c of `dim` sits `c % run` slots after c rounded down,
// for every c: runs of `run` consecutive coordinates are contiguous.
bool ContiguousRuns(const ArrayInfo& info, int dim, int64_t run) {
  const int64_t n = info.dims()[dim];
  if (n % run != 0) return false;
  for (int64_t c = 0; c < n; ++c) {
    if (info.DimOffset(dim, c) != info.DimOffset(dim, c - c % run) + c % run) return false;
  }
  return true;
}

float LoadF32(const uint8_t* data, int64_t slot) {
  float f;
  std::memcpy(&f, data + 4 * slot, 4);
  return f;
}

// The operand `v` of a matmul as panels of doubles [free/run][K][run], its
// free dim `free_dim` contiguous in runs of `run`, the other dim K.
std::vector<double> Panels(const Value& v, int free_dim, int run) {
  const ArrayInfo& info = *v.info;
  const int k_dim = 1 - free_dim;
  const int64_t free_size = info.dims()[free_dim], k_size = info.dims()[k_dim];
  std::vector<double> panels(free_size * k_size);
  double* to = panels.data();
  for (int64_t block = 0; block < free_size / run; ++block) {
    const int64_t base = info.origin() + info.DimOffset(free_dim, block * run);
    for (int64_t k = 0; k < k_size; ++k, to += run) {
      const int64_t s = base + info.DimOffset(k_dim, k);
      for (int i = 0; i < run; ++i) to[i] = LoadF32(v.data(), s + i);
    }
  }
  return panels;
}

// c[r][j] += a[k][r] * b[k][j] for k in [0, K), in that order; a and b are
// panels of doubles ([K][kMr] and [K][kNr]); c holds the sums so far. mul then add, never fused, as
// the generic dot computes (for f32 operands the product is exact, so the
// two agree bit for bit either way, but NaN operands pick their payload the
// same way only with the same instructions).
__attribute__((target("avx2"))) void Kernel4x8Avx2(const double* a, const double* b,
                                                   int64_t k_size, double* c) {
  __m256d c00 = _mm256_loadu_pd(c + 0), c01 = _mm256_loadu_pd(c + 4);
  __m256d c10 = _mm256_loadu_pd(c + 8), c11 = _mm256_loadu_pd(c + 12);
  __m256d c20 = _mm256_loadu_pd(c + 16), c21 = _mm256_loadu_pd(c + 20);
  __m256d c30 = _mm256_loadu_pd(c + 24), c31 = _mm256_loadu_pd(c + 28);
  for (int64_t k = 0; k < k_size; ++k, a += kMr, b += kNr) {
    const __m256d b0 = _mm256_loadu_pd(b), b1 = _mm256_loadu_pd(b + 4);
    __m256d r = _mm256_broadcast_sd(a);
    c00 = _mm256_add_pd(c00, _mm256_mul_pd(r, b0));
    c01 = _mm256_add_pd(c01, _mm256_mul_pd(r, b1));
    r = _mm256_broadcast_sd(a + 1);
    c10 = _mm256_add_pd(c10, _mm256_mul_pd(r, b0));
    c11 = _mm256_add_pd(c11, _mm256_mul_pd(r, b1));
    r = _mm256_broadcast_sd(a + 2);
    c20 = _mm256_add_pd(c20, _mm256_mul_pd(r, b0));
    c21 = _mm256_add_pd(c21, _mm256_mul_pd(r, b1));
    r = _mm256_broadcast_sd(a + 3);
    c30 = _mm256_add_pd(c30, _mm256_mul_pd(r, b0));
    c31 = _mm256_add_pd(c31, _mm256_mul_pd(r, b1));
  }
  _mm256_storeu_pd(c + 0, c00);
  _mm256_storeu_pd(c + 4, c01);
  _mm256_storeu_pd(c + 8, c10);
  _mm256_storeu_pd(c + 12, c11);
  _mm256_storeu_pd(c + 16, c20);
  _mm256_storeu_pd(c + 20, c21);
  _mm256_storeu_pd(c + 24, c30);
  _mm256_storeu_pd(c + 28, c31);
}

void Kernel4x8Scalar(const double* a, const double* b, int64_t k_size, double* c) {
  for (int64_t k = 0; k < k_size; ++k, a += kMr, b += kNr) {
    for (int r = 0; r < kMr; ++r) {
      for (int j = 0; j < kNr; ++j) c[r * kNr + j] += a[r] * b[j];
    }
  }
}

}  // namespace

std::optional<absl::StatusOr<Value>> PackedDot(const HloInstruction& dot, const Value& lhs,
                                               const Value& rhs,
                                               const std::shared_ptr<const ArrayInfo>& out) {
  const auto& at = dot.attributes();
  auto is = [](const std::optional<std::vector<int64_t>>& v, std::vector<int64_t> want) {
    return v.value_or(std::vector<int64_t>{}) == want;
  };
  const ArrayInfo& l = *lhs.info;
  const ArrayInfo& r = *rhs.info;
  if (l.rank() != 2 || r.rank() != 2 || out->rank() != 2 || !is(at.lhs_contracting_dims, {1}) ||
      !is(at.rhs_contracting_dims, {0}) || !is(at.lhs_batch_dims, {}) ||
      !is(at.rhs_batch_dims, {}) || l.type() != F32 || r.type() != F32 || out->type() != F32 ||
      l.slot_bits() != 32 || r.slot_bits() != 32 || out->slot_bits() != 32 ||
      !l.separable() || !r.separable() || !out->separable() || !ContiguousRuns(l, 0, kMr) ||
      !ContiguousRuns(r, 1, kNr)) {
    return std::nullopt;
  }
  const int64_t m_size = l.dims()[0], k_size = l.dims()[1], n_size = r.dims()[1];
  absl::Status room = CheckAllocationSize(8 * (m_size + n_size) * k_size, "the dot's panels");
  if (!room.ok()) return absl::StatusOr<Value>(room);
  // Panels of doubles, converted once: the lhs [M/4][K][4], the rhs [N/8][K][8].
  const std::vector<double> a = Panels(lhs, /*free_dim=*/0, kMr);
  const std::vector<double> b = Panels(rhs, /*free_dim=*/1, kNr);
  absl::StatusOr<Value> result = Value::Allocate(out);
  if (!result.ok()) return result;
  uint8_t* data = result->mutable_data();
  static const bool avx2 = __builtin_cpu_supports("avx2");
  // The contracting dim is cut into blocks whose rhs panel stays in L1
  // while every row block passes over it; the sums so far wait in `c`, so
  // each still adds its products in increasing k.
  constexpr int64_t kKc = 256;
  const int64_t mbs = m_size / kMr, nbs = n_size / kNr;
  std::vector<double> c(m_size * n_size, 0.0);
  for (int64_t k0 = 0; k0 < k_size; k0 += kKc) {
    const int64_t kc = std::min(kKc, k_size - k0);
    const bool last = k0 + kc == k_size;
    for (int64_t nb = 0; nb < nbs; ++nb) {
      const double* bp = &b[(nb * k_size + k0) * kNr];
      for (int64_t mb = 0; mb < mbs; ++mb) {
        const double* ap = &a[(mb * k_size + k0) * kMr];
        double* cp = &c[(nb * mbs + mb) * kMr * kNr];
        if (avx2) {
          Kernel4x8Avx2(ap, bp, kc, cp);
        } else {
          Kernel4x8Scalar(ap, bp, kc, cp);
        }
        if (!last) continue;
        for (int i = 0; i < kMr; ++i) {
          const int64_t row = out->origin() + out->DimOffset(0, mb * kMr + i);
          for (int j = 0; j < kNr; ++j) {
            // What Normalize and Store make of the sum: rounded to f32 once.
            const float f = static_cast<float>(cp[i * kNr + j]);
            std::memcpy(data + 4 * (row + out->DimOffset(1, nb * kNr + j)), &f, 4);
          }
        }
      }
    }
  }
  return result;
}

}  // namespace xla_layout::runtime
