#include "bench/relayout_cases.h"

#include "absl/strings/str_format.h"
#include "xla_layout/copy_reference.h"

namespace xla_layout::bench {

std::vector<Mover> TransposeLines(int64_t na, int64_t nb, int64_t ssb, int64_t dsa,
                                  int64_t blocks, int64_t src_step, int64_t dst_step) {
  std::vector<Mover> movers;
  for (int64_t strip_rows : {16, 256}) {
    movers.push_back([=](const char* s, char* d, bool streaming) {
      for (int64_t i = 0; i < blocks; ++i) {
        if (!TransposeTiles(TileMove::kLines, s + i * src_step, d + i * dst_step, na, nb, ssb,
                            dsa, strip_rows, streaming)) {
          return false;
        }
      }
      return true;
    });
  }
  return movers;
}

namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// [M,N] row-major seen as 4-D (mt, mi, nt, ni) with tiles (a, b).
dnnl::memory::desc Tiled2D(int64_t m, int64_t n, int64_t a, int64_t b,
                           bool tile_major_n) {
  dnnl::memory::dims dims = {m / a, a, n / b, b};
  dnnl::memory::dims strides =
      tile_major_n ? dnnl::memory::dims{a * b, b, (m / a) * a * b, 1}
                   : dnnl::memory::dims{(n / b) * a * b, b, a * b, 1};
  return dnnl::memory::desc(dims, dt::f32, strides);
}

dnnl::memory::desc RowMajor4D(int64_t m, int64_t n, int64_t a, int64_t b,
                              dt type) {
  return dnnl::memory::desc({m / a, a, n / b, b}, type, {a * n, n, b, 1});
}

// f32[N,N] to and from T(8,128), 32x32 tiles ordered by columns, narrow
// T(4,128) tiles, and the plain transpose, at N = 4096 and 1000.
void AddSquareCases(std::vector<Case>& cases) {
  for (int64_t n : {4096, 1000}) {
    std::string f = absl::StrFormat("f32[%d,%d]", n, n);
    bool even = n % 128 == 0;
    // A conversion and its inverse; oneDNN's descriptors swap likewise.
    auto both = [&](const std::string& what, const std::string& tiled,
                    int64_t a, int64_t b, bool tile_major_n) {
      std::function<DnnlDescs()> to, from;
      if (even) {
        to = [=] {
          return DnnlDescs{RowMajor4D(n, n, a, b, dt::f32),
                           Tiled2D(n, n, a, b, tile_major_n)};
        };
        from = [to] {
          DnnlDescs d = to();
          return DnnlDescs{d.second, d.first};
        };
      }
      cases.push_back({absl::StrFormat("f32_%d_to_%s", n, what), f + "{1,0}",
                       f + tiled, to});
      cases.push_back({absl::StrFormat("f32_%d_from_%s", n, what), f + tiled,
                       f + "{1,0}", from});
    };
    both("T8x128", "{1,0:T(8,128)}", 8, 128, false);
    for (bool to_tiles : {true, false}) {
      cases[cases.size() - 2 + (to_tiles ? 0 : 1)].lines = {
          [n, to_tiles](const char* s, char* d, bool streaming) {
            return CopyTileRuns(s, d, n, n, 8, 128, 4, to_tiles, streaming);
          }};
    }
    // 32x32 tiles with outer_dims_perm [1,0]: [N/32, M/32, 32, 32].
    both("32x32_perm", "{0,1:T(32,32)(32,1)}", 32, 32, true);
    // A transpose into narrow tiles (XLA's TPU tiling of a short minor dim).
    cases.push_back({absl::StrFormat("f32_%d_to_T4x128_transposed", n), f + "{1,0}",
                     f + "{0,1:T(4,128)}", {}});
    cases.push_back({absl::StrFormat("f32_%d_transpose", n), f + "{1,0}",
                     f + "{0,1}", [n] {
                       return DnnlDescs{
                           dnnl::memory::desc({n, n}, dt::f32, tag::ab),
                           dnnl::memory::desc({n, n}, dt::f32, tag::ba)};
                     },
                     TransposeLines(n, n, 4 * n, 4 * n)});
  }
}

void AddLineCases(std::vector<Case>& cases) {
  // The transposes' access without their shuffles: 64-byte lines gathered
  // 16 source rows at a time into T(16,16) tiles, nothing moved within a
  // line. A transpose at this one's speed is bound by how the machine
  // moves lines so scattered, not by its kernel's instructions; 256x256 is
  // the same pair in L2.
  for (int64_t n : {4096, 256}) {
    std::string f = absl::StrFormat("f32[%d,%d]", n, n);
    cases.push_back({absl::StrFormat("f32_%d_to_T16x16_lines", n), f + "{1,0}",
                     f + "{1,0:T(16,16)}", {}});
  }
  cases.push_back({"f32_256_transpose", "f32[256,256]{1,0}", "f32[256,256]{0,1}", {},
                   TransposeLines(256, 256, 1024, 1024)});
}

void AddBf16Case(std::vector<Case>& cases) {
  cases.push_back(
      {"bf16_4096_to_T8x128_2x1", "bf16[4096,4096]{1,0}",
       "bf16[4096,4096]{1,0:T(8,128)(2,1)}", [] {
         // m = mt*8 + mq*2 + mr, n = nt*128 + ni.
         int64_t n = 4096;
         dnnl::memory::dims dims = {n / 8, 4, 2, n / 128, 128};
         return DnnlDescs{
             dnnl::memory::desc(dims, dt::bf16, {8 * n, 2 * n, n, 128, 1}),
             dnnl::memory::desc(dims, dt::bf16,
                                {(n / 128) * 1024, 256, 1, 1024, 2})};
       },
       {[](const char* s, char* d, bool streaming) {
         return PairLinesT8x128(s, d, 4096, 4096, streaming);
       }}});
}

// NCHW <-> nChw16c on f32[32,64,56,56].
void AddNchwCases(std::vector<Case>& cases) {
  std::string nchw = "f32[32,64,56,56]";
  auto nchw_desc = [](tag t) {
    return dnnl::memory::desc({32, 64, 56, 56}, dt::f32, t);
  };
  // Each of the 32 x 4 blocks of 16 channels is a transpose between 16
  // planes of 56 x 56 and 3136 lines of 16 channels.
  const int64_t plane = 56 * 56 * 4, block = 16 * plane;
  cases.push_back({"f32_nchw_to_nChw16c", nchw + "{3,2,1,0}",
                   nchw + "{3,2,1,0:T(16,1,1)}", [=] {
                     return DnnlDescs{nchw_desc(tag::nchw),
                                      nchw_desc(tag::nChw16c)};
                   },
                   TransposeLines(56 * 56, 16, plane, 64, 32 * 4, block, block)});
  cases.push_back({"f32_nChw16c_to_nchw", nchw + "{3,2,1,0:T(16,1,1)}",
                   nchw + "{3,2,1,0}", [=] {
                     return DnnlDescs{nchw_desc(tag::nChw16c),
                                      nchw_desc(tag::nchw)};
                   },
                   TransposeLines(16, 56 * 56, 64, plane, 32 * 4, block, block)});
}

void AddImageCases(std::vector<Case>& cases) {
  // The copy that decides the replay's total (docs/benchmarks.md): a batch
  // of 96 images to batch-minor tiles, 96 padded to 128. Each 512-byte
  // destination row takes one element of 96 source rows 602,112 bytes
  // apart (the lines), then its last 128 bytes are zeroed, in a pass of
  // its own.
  const int64_t pixels = 3 * 224 * 224;
  std::vector<Mover> images;
  for (const Mover& lines : TransposeLines(pixels, 96, pixels * 4, 512)) {
    images.push_back([=](const char* s, char* d, bool streaming) {
      return lines(s, d, streaming) && ZeroRowTails(d + 384, pixels, 512, 128, streaming);
    });
  }
  cases.push_back({"f32_96_images_to_batch_minor", "f32[96,3,224,224]{3,2,1,0}",
                   "f32[96,3,224,224]{0,3,2,1:T(8,128)}", {}, images});
  // The same without tiles (the replay's second-largest loss): 384-byte
  // destination rows, no padding.
  cases.push_back({"f32_96_images_batch_minor_flat", "f32[96,3,224,224]{3,2,1,0}",
                   "f32[96,3,224,224]{0,3,2,1}", {},
                   TransposeLines(pixels, 96, pixels * 4, 384)});
}

}  // namespace

std::vector<Case> Cases() {
  std::vector<Case> cases;
  AddSquareCases(cases);
  AddLineCases(cases);
  AddBf16Case(cases);
  AddNchwCases(cases);
  AddImageCases(cases);
  return cases;
}

}  // namespace xla_layout::bench
