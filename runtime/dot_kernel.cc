#include "runtime/dot_kernel.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "runtime/nan_rule.h"
#include "xla_layout/memory.h"

namespace xla_layout::runtime {
namespace {

// The operands must come in runs of at least this many rows (lhs) and
// columns (rhs): what "packed" means here.
constexpr int kLhsRun = 4;
constexpr int kRhsRun = 8;
constexpr int kMr = 4;  // the AVX2 and scalar kernels' block: rows
constexpr int kNr = 8;  // and columns

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

// The operand `v` of a matmul as panels of doubles [free/run][K][run] in
// `panels`: `run` coordinates of its free dim `free_dim` side by side for
// each k.
void Panels(const Value& v, int free_dim, int run, std::vector<double>& panels) {
  const ArrayInfo& info = *v.info;
  const int k_dim = 1 - free_dim;
  const int64_t free_size = info.dims()[free_dim], k_size = info.dims()[k_dim];
  panels.resize(free_size * k_size);
  std::vector<int64_t> rows(run);
  double* to = panels.data();
  for (int64_t block = 0; block < free_size / run; ++block) {
    bool contiguous = true;
    for (int i = 0; i < run; ++i) {
      rows[i] = info.origin() + info.DimOffset(free_dim, block * run + i);
      contiguous &= rows[i] == rows[0] + i;
    }
    for (int64_t k = 0; k < k_size; ++k, to += run) {
      const int64_t off = info.DimOffset(k_dim, k);
      if (contiguous) {
        // One run of floats: the compiler widens it (cvtps2pd).
        const uint8_t* from = v.data() + 4 * (rows[0] + off);
        for (int i = 0; i < run; ++i) {
          float f;
          std::memcpy(&f, from + 4 * i, 4);
          to[i] = f;
        }
      } else {
        for (int i = 0; i < run; ++i) to[i] = LoadF32(v.data(), rows[i] + off);
      }
    }
  }
}

// Buffers kept from one dot to the next on a thread: fresh pages cost a
// fault each, which on a matmul of a few MiB is a third of its time.
struct Scratch {
  std::vector<double> a, b, c;
};
Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

// c[r][j] += a[k][r] * b[k][j] for k in [0, K), in that order; a and b are
// panels of doubles ([K][kMr] and [K][kNr]); c holds the sums so far, as
// [kMr][kNr]. mul then add, never fused (runtime/BUILD turns contraction
// off), as the generic dot computes (for f32 operands the product is exact, so the
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

// The same on an 8x16 block in AVX-512 registers (16 accumulators): fewer
// loads and instructions per product than 4x8, where 512-bit ops exist.
__attribute__((target("avx512f"))) void Kernel8x16Avx512(const double* a, const double* b,
                                                        int64_t k_size, double* c) {
  __m512d acc[8][2];
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    acc[r][0] = _mm512_loadu_pd(c + 16 * r);
    acc[r][1] = _mm512_loadu_pd(c + 16 * r + 8);
  }
  for (int64_t k = 0; k < k_size; ++k, a += 8, b += 16) {
    const __m512d b0 = _mm512_loadu_pd(b), b1 = _mm512_loadu_pd(b + 8);
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r) {
      const __m512d x = _mm512_set1_pd(a[r]);
      acc[r][0] = _mm512_add_pd(acc[r][0], _mm512_mul_pd(x, b0));
      acc[r][1] = _mm512_add_pd(acc[r][1], _mm512_mul_pd(x, b1));
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    _mm512_storeu_pd(c + 16 * r, acc[r][0]);
    _mm512_storeu_pd(c + 16 * r + 8, acc[r][1]);
  }
}

struct Kernel {
  int mr, nr;
  void (*run)(const double*, const double*, int64_t, double*);
  absl::string_view name;
};

// The widest of `isa`'s kernels (`isa` resolved: the CPU runs it) whose
// block divides the matmul.
Kernel ChooseKernel(Isa isa, int64_t m_size, int64_t n_size) {
  if (isa == Isa::kAvx512 && m_size % 8 == 0 && n_size % 16 == 0) {
    return {8, 16, Kernel8x16Avx512, "avx512 8x16"};
  }
  if (isa == Isa::kScalar) return {kMr, kNr, Kernel4x8Scalar, "scalar 4x8"};
  return {kMr, kNr, Kernel4x8Avx2, "avx2 4x8"};
}

// The result elements the kernel found NaN, by the NaN rule
// (runtime/nan_rule.h): the kernel's own NaN depends on its operand order.
// Operands are f32, so before the first k where a row of the lhs or a
// column of the rhs holds a NaN or an infinity every product is finite and
// so is every sum (far below double's range): such a prefix cannot decide
// which NaN comes out, and the rule runs from that k with the sum at 0. A
// NaN operand there decides at once; only infinities make it go on. The
// first k of each row and column is found on the first NaN result: a dot
// without one pays nothing.
class NanResolver {
 public:
  // a and b: the panels of PackedDot, of blocks of mr rows and nr columns.
  NanResolver(const std::vector<double>& a, const std::vector<double>& b, int64_t m_size,
              int64_t n_size, int64_t k_size, int mr, int nr)
      : a_(a), b_(b), m_size_(m_size), n_size_(n_size), k_size_(k_size), mr_(mr), nr_(nr) {}

  double Element(int64_t row, int64_t col) {
    if (row_first_.empty()) {
      row_first_ = FirstSpecial(m_size_, [&](int64_t r, int64_t k) { return A(r, k); });
      col_first_ = FirstSpecial(n_size_, [&](int64_t c, int64_t k) { return B(c, k); });
    }
    double sum = 0;
    for (int64_t k = std::min(row_first_[row], col_first_[col]); k < k_size_ && !std::isnan(sum);
         ++k) {
      sum = RuleSum(sum, RuleProduct(A(row, k), B(col, k)));
    }
    return sum;
  }

 private:
  double A(int64_t row, int64_t k) const {
    return a_[((row / mr_) * k_size_ + k) * mr_ + row % mr_];
  }
  double B(int64_t col, int64_t k) const {
    return b_[((col / nr_) * k_size_ + k) * nr_ + col % nr_];
  }
  // For each of `count` vectors, the first k where `at(vector, k)` is not
  // finite (k_size when none is).
  template <typename At>
  std::vector<int64_t> FirstSpecial(int64_t count, At&& at) const {
    std::vector<int64_t> first(count, k_size_);
    for (int64_t v = 0; v < count; ++v) {
      for (int64_t k = 0; k < k_size_; ++k) {
        if (!std::isfinite(at(v, k))) {
          first[v] = k;
          break;
        }
      }
    }
    return first;
  }

  const std::vector<double>& a_;
  const std::vector<double>& b_;
  const int64_t m_size_, n_size_, k_size_;
  const int mr_, nr_;
  std::vector<int64_t> row_first_, col_first_;
};

}  // namespace

absl::string_view PackedDotKernel(int64_t m_size, int64_t n_size, Isa isa) {
  return ChooseKernel(ResolveIsa(isa), m_size, n_size).name;
}

std::optional<absl::StatusOr<Value>> PackedDot(const HloInstruction& dot, const Value& lhs,
                                               const Value& rhs,
                                               const std::shared_ptr<const ArrayInfo>& out,
                                               Isa isa) {
  const auto& at = dot.attributes();
  auto is = [](const std::optional<std::vector<int64_t>>& v, std::vector<int64_t> want) {
    return v.value_or(std::vector<int64_t>{}) == want;
  };
  const ArrayInfo& l = *lhs.info;
  const ArrayInfo& r = *rhs.info;
  if (l.rank() != 2 || r.rank() != 2 || out->rank() != 2 || !is(at.dot().lhs_contracting_dims, {1}) ||
      !is(at.dot().rhs_contracting_dims, {0}) || !is(at.dot().lhs_batch_dims, {}) ||
      !is(at.dot().rhs_batch_dims, {}) || l.type() != F32 || r.type() != F32 || out->type() != F32 ||
      l.slot_bits() != 32 || r.slot_bits() != 32 || out->slot_bits() != 32 ||
      !l.separable() || !r.separable() || !out->separable() || !ContiguousRuns(l, 0, kLhsRun) ||
      !ContiguousRuns(r, 1, kRhsRun)) {
    return std::nullopt;
  }
  const int64_t m_size = l.dims()[0], k_size = l.dims()[1], n_size = r.dims()[1];
  absl::Status room =
      CheckAllocationSize(8 * ((m_size + n_size) * k_size + m_size * n_size), "the dot's panels");
  if (!room.ok()) return absl::StatusOr<Value>(room);
  const Kernel kernel = ChooseKernel(ResolveIsa(isa), m_size, n_size);
  const int mr = kernel.mr, nr = kernel.nr;
  // Panels of doubles, converted once: the lhs [M/mr][K][mr], the rhs [N/nr][K][nr].
  Scratch& scratch = ThreadScratch();
  Panels(lhs, /*free_dim=*/0, mr, scratch.a);
  Panels(rhs, /*free_dim=*/1, nr, scratch.b);
  const std::vector<double>& a = scratch.a;
  const std::vector<double>& b = scratch.b;
  absl::StatusOr<Value> result = Value::Allocate(out);
  if (!result.ok()) return result;
  uint8_t* data = result->mutable_data();
  // The contracting dim is cut into blocks whose rhs panel stays in L1
  // while every row block passes over it; the sums so far wait in `c`, so
  // each still adds its products in increasing k.
  constexpr int64_t kKc = 256;
  const int64_t mbs = m_size / mr, nbs = n_size / nr;
  std::vector<double>& c = scratch.c;
  c.assign(m_size * n_size, 0.0);
  NanResolver nans(a, b, m_size, n_size, k_size, mr, nr);
  for (int64_t k0 = 0; k0 < k_size; k0 += kKc) {
    const int64_t kc = std::min(kKc, k_size - k0);
    const bool last = k0 + kc == k_size;
    for (int64_t nb = 0; nb < nbs; ++nb) {
      const double* bp = &b[(nb * k_size + k0) * nr];
      for (int64_t mb = 0; mb < mbs; ++mb) {
        const double* ap = &a[(mb * k_size + k0) * mr];
        double* cp = &c[(nb * mbs + mb) * mr * nr];
        kernel.run(ap, bp, kc, cp);
        if (!last) continue;
        for (int i = 0; i < mr; ++i) {
          const int64_t row = out->origin() + out->DimOffset(0, mb * mr + i);
          for (int j = 0; j < nr; ++j) {
            double sum = cp[i * nr + j];
            if (std::isnan(sum)) sum = nans.Element(mb * mr + i, nb * nr + j);
            // What Normalize and Store make of the sum: rounded to f32 once.
            const float f = static_cast<float>(sum);
            std::memcpy(data + 4 * (row + out->DimOffset(1, nb * nr + j)), &f, 4);
          }
        }
      }
    }
  }
  return result;
}

}  // namespace xla_layout::runtime
