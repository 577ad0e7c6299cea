#include "runtime/dot_kernel.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "runtime/element.h"
#include "runtime/fast_element.h"
#include "runtime/nan_rule.h"
#include "xla_layout/memory.h"

namespace xla_layout::runtime {
namespace {

constexpr int kMr = 4;  // the AVX2 and scalar kernels' block: rows
constexpr int kNr = 8;  // and columns

// The slot offset (from the origin) of every index over `dims` of `info`,
// row-major over them in the order given (the first outermost): the order
// the generic dot walks contracting indices in and the result's dims take
// the free ones in.
std::vector<int64_t> IndexOffsets(const ArrayInfo& info, absl::Span<const int64_t> dims) {
  std::vector<int64_t> offsets = {0};
  for (int64_t d : dims) {
    const int64_t n = info.dims()[d];
    std::vector<int64_t> next;
    next.reserve(offsets.size() * n);
    for (int64_t o : offsets) {
      for (int64_t c = 0; c < n; ++c) next.push_back(o + info.DimOffset(static_cast<int>(d), c));
    }
    offsets = std::move(next);
  }
  return offsets;
}

// The dims of a rank-`rank` operand that are neither batch nor contracting,
// in increasing order (as the result takes them).
std::vector<int64_t> FreeDims(int rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end()) {
      free.push_back(d);
    }
  }
  return free;
}

// Element `slot` of an f32 or (`bf16`) bf16 array, exactly, as double.
double LoadFloat(const uint8_t* data, bool bf16, int64_t slot) {
  return bf16 ? Bf16Slots::Load(data, slot) : F32Slots::Load(data, slot);
}

// One batch of the operand `v` (f32 or bf16) of a matmul as panels of
// doubles [ceil(free/run)][K][run] in `panels`: `run` coordinates of its
// (flattened) free dims side by side for each contracting index, zeros
// past the last. `base` is the batch's slot, `free` and `k` the offsets of
// the free and contracting indices from it.
void Panels(const Value& v, int64_t base, const std::vector<int64_t>& free,
            const std::vector<int64_t>& k, int run, std::vector<double>& panels) {
  const int64_t free_size = free.size(), k_size = k.size();
  const int64_t blocks = (free_size + run - 1) / run;
  const bool bf16 = v.info->type() == BF16;
  panels.resize(blocks * run * k_size);
  std::vector<int64_t> rows(run);
  double* to = panels.data();
  for (int64_t block = 0; block < blocks; ++block) {
    const int width = static_cast<int>(std::min<int64_t>(run, free_size - block * run));
    bool contiguous = !bf16 && width == run;
    for (int i = 0; i < width; ++i) {
      rows[i] = base + free[block * run + i];
      contiguous &= rows[i] == rows[0] + i;
    }
    for (int64_t kk = 0; kk < k_size; ++kk, to += run) {
      const int64_t off = k[kk];
      if (contiguous) {
        // One run of floats: the compiler widens it (cvtps2pd).
        const uint8_t* from = v.data() + 4 * (rows[0] + off);
        for (int i = 0; i < run; ++i) {
          float f;
          std::memcpy(&f, from + 4 * i, 4);
          to[i] = f;
        }
      } else {
        for (int i = 0; i < width; ++i) to[i] = LoadFloat(v.data(), bf16, rows[i] + off);
        for (int i = width; i < run; ++i) to[i] = 0;
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

// The widest of `isa`'s kernels (`isa` resolved: the CPU runs it): the
// 8x16 one when its block divides the matmul, else 4x8, whose last blocks
// are padded.
Kernel ChooseKernel(Isa isa, int64_t m_size, int64_t n_size) {
  if (isa == Isa::kAvx512 && m_size % 8 == 0 && n_size % 16 == 0) {
    return {8, 16, Kernel8x16Avx512, "avx512 8x16"};
  }
  if (isa == Isa::kScalar) return {kMr, kNr, Kernel4x8Scalar, "scalar 4x8"};
  return {kMr, kNr, Kernel4x8Avx2, "avx2 4x8"};
}

// The result elements the kernel found NaN, by the NaN rule
// (runtime/nan_rule.h): the kernel's own NaN depends on its operand order.
// Operands are f32 or bf16, so before the first k where a row of the lhs or a
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

namespace {

// Where a dot's elements sit, as slot offsets: per batch index (row-major
// over the batch dims) of each operand and the result, per row (the lhs's
// free dims flattened), per column (the rhs's) and per contracting index.
struct DotOffsets {
  std::vector<int64_t> lhs_batch, rhs_batch, out_batch;
  std::vector<int64_t> lhs_rows, out_rows, rhs_cols, out_cols;
  std::vector<int64_t> lhs_k, rhs_k;
};

// Whether the kernel reads `a`: f32 or bf16 in slots of their own width.
bool KernelType(const ArrayInfo& a) {
  return (a.type() == F32 && a.slot_bits() == 32) || (a.type() == BF16 && a.slot_bits() == 16);
}

// Whether the generic dot's conversion of an operand of type `from` to the
// result's type `to` is exact, so that reading the operand as it is gives
// the same products.
bool ExactConversion(PrimitiveType from, PrimitiveType to) {
  return from == to || (to == F32 && from == BF16);
}

// The offsets of a dot the kernel runs, or none.
std::optional<DotOffsets> PackedOffsets(const HloInstruction& dot, const ArrayInfo& l,
                                        const ArrayInfo& r, const ArrayInfo& out) {
  const auto& at = dot.attributes().dot();
  auto dims = [](const std::optional<std::vector<int64_t>>& v) {
    return v.value_or(std::vector<int64_t>{});
  };
  const std::vector<int64_t> lb = dims(at.lhs_batch_dims), rb = dims(at.rhs_batch_dims);
  const std::vector<int64_t> lc = dims(at.lhs_contracting_dims), rc = dims(at.rhs_contracting_dims);
  if (!KernelType(l) || !KernelType(r) || !KernelType(out) ||
      !ExactConversion(l.type(), out.type()) || !ExactConversion(r.type(), out.type()) ||
      !l.separable() || !r.separable() || !out.separable() || lb.size() != rb.size() ||
      lc.size() != rc.size() || !at.sparsity.empty()) {
    return std::nullopt;
  }
  const std::vector<int64_t> lf = FreeDims(l.rank(), lb, lc), rf = FreeDims(r.rank(), rb, rc);
  if (static_cast<size_t>(out.rank()) != lb.size() + lf.size() + rf.size()) return std::nullopt;
  std::vector<int64_t> ob, orow, ocol;
  for (int64_t i = 0; i < out.rank(); ++i) {
    (i < static_cast<int64_t>(lb.size()) ? ob : i < static_cast<int64_t>(lb.size() + lf.size()) ? orow : ocol).push_back(i);
  }
  DotOffsets o{IndexOffsets(l, lb),  IndexOffsets(r, rb),   IndexOffsets(out, ob),
               IndexOffsets(l, lf),  IndexOffsets(out, orow), IndexOffsets(r, rf),
               IndexOffsets(out, ocol), IndexOffsets(l, lc), IndexOffsets(r, rc)};
  if (o.lhs_rows.empty() || o.rhs_cols.empty() || o.lhs_k.empty() || o.lhs_batch.empty()) {
    return std::nullopt;
  }
  return o;
}

// Stores the sum of result element `slot` as Normalize and Store store it:
// rounded to the result's type once.
void StoreSum(const ArrayInfo& out, uint8_t* data, int64_t slot, double sum) {
  if (out.type() == F32) {
    const float f = static_cast<float>(sum);
    std::memcpy(data + 4 * slot, &f, 4);
    return;
  }
  Num n;
  n.f = sum;
  out.Store(data, slot, Normalize(n, out.type()));
}

// One batch of the dot: the result elements at `out_base` (+ the row and
// column offsets) of lhs[M,K] x rhs[K,N] at `lhs_base`, `rhs_base`.
void RunBatch(const Kernel& kernel, const Value& lhs, const Value& rhs, const DotOffsets& o,
              int64_t lhs_base, int64_t rhs_base, const ArrayInfo& out, int64_t out_base,
              uint8_t* data) {
  const int mr = kernel.mr, nr = kernel.nr;
  const int64_t m_size = o.lhs_rows.size(), n_size = o.rhs_cols.size(), k_size = o.lhs_k.size();
  // Panels of doubles, converted once: the lhs [M/mr][K][mr], the rhs
  // [N/nr][K][nr], each rounded up to whole blocks.
  Scratch& scratch = ThreadScratch();
  Panels(lhs, lhs_base, o.lhs_rows, o.lhs_k, mr, scratch.a);
  Panels(rhs, rhs_base, o.rhs_cols, o.rhs_k, nr, scratch.b);
  const std::vector<double>& a = scratch.a;
  const std::vector<double>& b = scratch.b;
  // The contracting dim is cut into blocks whose rhs panel stays in L1
  // while every row block passes over it; the sums so far wait in `c`, so
  // each still adds its products in increasing k.
  constexpr int64_t kKc = 256;
  const int64_t mbs = (m_size + mr - 1) / mr, nbs = (n_size + nr - 1) / nr;
  std::vector<double>& c = scratch.c;
  c.assign(mbs * mr * nbs * nr, 0.0);
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
        // The padding rows and columns of the last blocks are not stored.
        const int rows = static_cast<int>(std::min<int64_t>(mr, m_size - mb * mr));
        const int cols = static_cast<int>(std::min<int64_t>(nr, n_size - nb * nr));
        for (int i = 0; i < rows; ++i) {
          const int64_t row = out_base + o.out_rows[mb * mr + i];
          for (int j = 0; j < cols; ++j) {
            double sum = cp[i * nr + j];
            if (std::isnan(sum)) sum = nans.Element(mb * mr + i, nb * nr + j);
            StoreSum(out, data, row + o.out_cols[nb * nr + j], sum);
          }
        }
      }
    }
  }
}

}  // namespace

std::optional<absl::StatusOr<Value>> PackedDot(const HloInstruction& dot, const Value& lhs,
                                               const Value& rhs,
                                               const std::shared_ptr<const ArrayInfo>& out,
                                               Isa isa) {
  std::optional<DotOffsets> o = PackedOffsets(dot, *lhs.info, *rhs.info, *out);
  if (!o.has_value()) return std::nullopt;
  const int64_t m_size = o->lhs_rows.size(), k_size = o->lhs_k.size(), n_size = o->rhs_cols.size();
  // Rounded up to blocks of 8 rows and 16 columns, the most any kernel pads.
  const int64_t m_up = (m_size + 7) / 8 * 8, n_up = (n_size + 15) / 16 * 16;
  // Panels that do not fit leave the dot to the generic one, which needs none.
  if (!CheckAllocationSize(8 * ((m_up + n_up) * k_size + m_up * n_up), "the dot's panels").ok()) {
    return std::nullopt;
  }
  const Kernel kernel = ChooseKernel(ResolveIsa(isa), m_size, n_size);
  absl::StatusOr<Value> result = Value::Allocate(out);
  if (!result.ok()) return result;
  uint8_t* data = result->mutable_data();
  // The batch loop outside the blocked kernel: each batch is a matmul of
  // its own, its panels converted when it comes.
  for (size_t i = 0; i < o->lhs_batch.size(); ++i) {
    RunBatch(kernel, lhs, rhs, *o, lhs.info->origin() + o->lhs_batch[i],
             rhs.info->origin() + o->rhs_batch[i], *out, out->origin() + o->out_batch[i], data);
  }
  return result;
}

}  // namespace xla_layout::runtime
