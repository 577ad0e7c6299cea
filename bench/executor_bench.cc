// The executor on an MLP layer (dot + bias + relu, 1024 wide, batch 256,
// row-major parameters and result fixed by the header) after layout
// assignment for each target. Per target: the whole run, the time in the
// copies the pass inserted, their throughput against the same relayouts
// run alone by the packing core in the same process, and the dot's GFLOP/s
// in its assigned layouts next to OpenBLAS sgemm (one thread) on the same
// shapes, measured in the same run.
//
// Then two transformer blocks, each on `default` and `cpu-avx512`, copies
// included: one attention block (8 heads x 256 tokens x 64 per head,
// softmax(q k^T / 8) v, batched dots over the heads) and a Llama-style
// SwiGLU MLP block scaled to fit the generic dot's time (128 tokens,
// 1024 -> 2752 -> 1024, f32). Their reference is OpenBLAS sgemm on the same
// matmuls (batched by a loop over the heads), in the same run.
//
// Also the elementwise ops and reduce on f32[2048,768] (BERT's hidden
// size): elements per second through the executor, with its fast paths and
// with them off (the generic per-logical-index path), next to a plain loop
// over float arrays doing the same arithmetic in the same run.
//
//   bazel run -c opt //bench:executor_bench
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/bench_main.h"
#include "benchmark/benchmark.h"
#include "hlo/hlo_parser.h"
#include "passes/layout_assignment/layout_assignment.h"
#include "passes/layout_assignment/target_config.h"
#include "runtime/elementwise_fast.h"
#include "runtime/executor.h"
#include "runtime/logical.h"
#include "xla_layout/relayout.h"

namespace xla_layout {
namespace {

constexpr int64_t kBatch = 256, kWidth = 1024;

std::string MlpText() {
  return absl::StrFormat(
      "HloModule mlp, entry_computation_layout={(f32[%d,%d]{1,0}, f32[%d,%d]{1,0}, "
      "f32[%d]{0})->f32[%d,%d]{1,0}}\n\n"
      "ENTRY main {\n  x = f32[%d,%d] parameter(0)\n  w = f32[%d,%d] parameter(1)\n"
      "  b = f32[%d] parameter(2)\n"
      "  d = f32[%d,%d] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  bb = f32[%d,%d] broadcast(b), dimensions={1}\n  a = f32[%d,%d] add(d, bb)\n"
      "  zero = f32[] constant(0)\n  z = f32[%d,%d] broadcast(zero), dimensions={}\n"
      "  ROOT r = f32[%d,%d] maximum(a, z)\n}\n",
      kBatch, kWidth, kWidth, kWidth, kWidth, kBatch, kWidth, kBatch, kWidth, kWidth, kWidth,
      kWidth, kBatch, kWidth, kBatch, kWidth, kBatch, kWidth, kBatch, kWidth, kBatch, kWidth);
}

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void BM_Mlp(benchmark::State& state, const char* target) {
  std::unique_ptr<HloModule> m = *ParseHloModule(MlpText());
  LayoutAssignment pass(*TargetConfig::Builtin(target));
  if (!pass.Run(*m).ok()) {
    state.SkipWithError("layout assignment failed");
    return;
  }
  std::mt19937_64 rng(0);
  std::vector<runtime::LogicalArray> inputs;
  for (const HloInstruction* p : m->entry()->parameters()) {
    inputs.push_back(*runtime::RandomLogicalArray(p->shape(), rng));
  }
  // The copies run alone: one plan per copy instruction, same buffers sizes.
  std::vector<RelayoutPlan> plans;
  for (const HloInstruction* i : m->entry()->instructions()) {
    if (i->opcode() == HloOpcode::kCopy) plans.push_back(*RelayoutPlan::Create(i->operand(0)->shape(), i->shape()));
  }
  std::vector<std::vector<char>> src, dst;
  for (const RelayoutPlan& p : plans) {
    src.emplace_back(p.src_bytes(), 1);
    dst.emplace_back(p.dst_bytes(), 0);
  }
  std::vector<float> a(kBatch * kWidth, 0.5f), b(kWidth * kWidth, 0.25f), c(kBatch * kWidth);
  double copy_s = 0, dot_s = 0, alone_s = 0, blas_s = 0, total_s = 0;
  int64_t copies = 0, copy_bytes = 0;
  for (auto _ : state) {
    runtime::ExecutionStats stats;
    auto t0 = std::chrono::steady_clock::now();
    auto out = runtime::RunLogical(*m, inputs, {}, &stats);
    total_s += Since(t0);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    copy_s += stats.copy_seconds;
    dot_s += stats.dot_seconds;
    copies = stats.copies;
    copy_bytes = stats.copy_bytes;
    state.PauseTiming();
    t0 = std::chrono::steady_clock::now();
    for (size_t k = 0; k < plans.size(); ++k) plans[k].Execute(src[k].data(), dst[k].data());
    alone_s += Since(t0);
    t0 = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kBatch, kWidth, kWidth, 1.0f, a.data(),
                kWidth, b.data(), kWidth, 0.0f, c.data(), kWidth);
    blas_s += Since(t0);
    state.ResumeTiming();
  }
  const double n = static_cast<double>(state.iterations());
  const double flops = 2.0 * kBatch * kWidth * kWidth;
  state.counters["total_s"] = total_s / n;
  state.counters["copy_s"] = copy_s / n;
  state.counters["copies"] = static_cast<double>(copies);
  state.counters["copy_GBps"] = copy_s > 0 ? copy_bytes * n / copy_s / 1e9 : 0;
  state.counters["alone_GBps"] = alone_s > 0 ? copy_bytes * n / alone_s / 1e9 : 0;
  state.counters["dot_GFLOPs"] = flops * n / dot_s / 1e9;
  state.counters["sgemm_GFLOPs"] = flops * n / blas_s / 1e9;
}

// --- Transformer blocks -----------------------------------------------------

constexpr int64_t kHeads = 8, kTokens = 256, kHeadDim = 64;
constexpr int64_t kMlpTokens = 128, kModel = 1024, kHidden = 2752;

std::string AttentionText() {
  const std::string qkv = absl::StrFormat("f32[%d,%d,%d]", kHeads, kTokens, kHeadDim);
  const std::string s = absl::StrFormat("f32[%d,%d,%d]", kHeads, kTokens, kTokens);
  const std::string row = absl::StrFormat("f32[%d,%d]", kHeads, kTokens);
  return absl::StrCat(
      "HloModule attention, entry_computation_layout={(", qkv, "{2,1,0}, ", qkv, "{2,1,0}, ", qkv,
      "{2,1,0})->", qkv, "{2,1,0}}\n\n",
      "max_f {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT m = f32[] maximum(a, b)\n}\n\n",
      "add_f {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT s = f32[] add(a, b)\n}\n\n",
      "ENTRY main {\n  q = ", qkv, " parameter(0)\n  k = ", qkv, " parameter(1)\n  v = ", qkv,
      " parameter(2)\n  s = ", s,
      " dot(q, k), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
      "rhs_contracting_dims={2}\n"
      "  c = f32[] constant(0.125)\n  cb = ", s, " broadcast(c), dimensions={}\n  sc = ", s,
      " multiply(s, cb)\n  ninf = f32[] constant(-inf)\n  mx = ", row,
      " reduce(sc, ninf), dimensions={2}, to_apply=max_f\n  mb = ", s,
      " broadcast(mx), dimensions={0,1}\n  sh = ", s, " subtract(sc, mb)\n  e = ", s,
      " exponential(sh)\n  zero = f32[] constant(0)\n  sum = ", row,
      " reduce(e, zero), dimensions={2}, to_apply=add_f\n  sb = ", s,
      " broadcast(sum), dimensions={0,1}\n  p = ", s, " divide(e, sb)\n  ROOT o = ", qkv,
      " dot(p, v), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
      "rhs_contracting_dims={1}\n}\n");
}

std::string LlamaMlpText() {
  const std::string x = absl::StrFormat("f32[%d,%d]", kMlpTokens, kModel);
  const std::string w = absl::StrFormat("f32[%d,%d]", kModel, kHidden);
  const std::string wd = absl::StrFormat("f32[%d,%d]", kHidden, kModel);
  const std::string h = absl::StrFormat("f32[%d,%d]", kMlpTokens, kHidden);
  const char* dn = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
  return absl::StrCat(
      "HloModule llama_mlp, entry_computation_layout={(", x, "{1,0}, ", w, "{1,0}, ", w, "{1,0}, ",
      wd, "{1,0})->", x, "{1,0}}\n\nENTRY main {\n  x = ", x, " parameter(0)\n  wg = ", w,
      " parameter(1)\n  wu = ", w, " parameter(2)\n  wd = ", wd, " parameter(3)\n  g = ", h,
      " dot(x, wg), ", dn, "\n  u = ", h, " dot(x, wu), ", dn, "\n  sg = ", h,
      " logistic(g)\n  silu = ", h, " multiply(g, sg)\n  hu = ", h, " multiply(silu, u)\n  ROOT y = ",
      x, " dot(hu, wd), ", dn, "\n}\n");
}

// The blocks' matmuls in OpenBLAS (one thread): q k^T and p v per head, or
// the MLP's three matmuls.
void AttentionSgemm(std::vector<float>& a, std::vector<float>& b, std::vector<float>& c) {
  const int64_t qkv = kTokens * kHeadDim, ss = kTokens * kTokens;
  a.resize(kHeads * ss, 0.5f);
  b.resize(kHeads * qkv, 0.25f);
  c.resize(kHeads * ss);
  for (int64_t h = 0; h < kHeads; ++h) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, kTokens, kTokens, kHeadDim, 1.0f,
                b.data() + h * qkv, kHeadDim, b.data() + h * qkv, kHeadDim, 0.0f,
                c.data() + h * ss, kTokens);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kTokens, kHeadDim, kTokens, 1.0f,
                a.data() + h * ss, kTokens, b.data() + h * qkv, kHeadDim, 0.0f,
                c.data() + h * qkv, kHeadDim);
  }
}

void MlpSgemm(std::vector<float>& a, std::vector<float>& b, std::vector<float>& c) {
  a.resize(kMlpTokens * kHidden, 0.5f);
  b.resize(kModel * kHidden, 0.25f);
  c.resize(kMlpTokens * kHidden);
  for (int i = 0; i < 2; ++i) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kMlpTokens, kHidden, kModel, 1.0f,
                a.data(), kModel, b.data(), kHidden, 0.0f, c.data(), kHidden);
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kMlpTokens, kModel, kHidden, 1.0f,
              a.data(), kHidden, b.data(), kModel, 0.0f, c.data(), kModel);
}

struct Block {
  std::string (*text)();
  void (*sgemm)(std::vector<float>&, std::vector<float>&, std::vector<float>&);
  double flops;  // of the block's matmuls
};

const Block kAttention = {AttentionText, AttentionSgemm,
                          2.0 * 2 * kHeads * kTokens * kTokens * kHeadDim};
const Block kLlamaMlp = {LlamaMlpText, MlpSgemm, 2.0 * 3 * kMlpTokens * kModel * kHidden};

void BM_Block(benchmark::State& state, const Block* block, const char* target) {
  std::unique_ptr<HloModule> m = *ParseHloModule(block->text());
  LayoutAssignment pass(*TargetConfig::Builtin(target));
  if (!pass.Run(*m).ok()) {
    state.SkipWithError("layout assignment failed");
    return;
  }
  std::mt19937_64 rng(0);
  std::vector<runtime::LogicalArray> inputs;
  for (const HloInstruction* p : m->entry()->parameters()) {
    inputs.push_back(*runtime::RandomLogicalArray(p->shape(), rng));
  }
  std::vector<float> a, b, c;
  double copy_s = 0, dot_s = 0, blas_s = 0, total_s = 0;
  int64_t copies = 0;
  for (auto _ : state) {
    runtime::ExecutionStats stats;
    auto t0 = std::chrono::steady_clock::now();
    auto out = runtime::RunLogical(*m, inputs, {}, &stats);
    total_s += Since(t0);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    copy_s += stats.copy_seconds;
    dot_s += stats.dot_seconds;
    copies = stats.copies;
    state.PauseTiming();
    t0 = std::chrono::steady_clock::now();
    block->sgemm(a, b, c);
    blas_s += Since(t0);
    state.ResumeTiming();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["total_s"] = total_s / n;
  state.counters["copy_s"] = copy_s / n;
  state.counters["copies"] = static_cast<double>(copies);
  state.counters["dot_GFLOPs"] = block->flops * n / dot_s / 1e9;
  state.counters["sgemm_GFLOPs"] = block->flops * n / blas_s / 1e9;
}

// --- Elementwise ops and reduce -----------------------------------------------

constexpr int64_t kRows = 2048, kCols = 768;

// A chain of five elementwise ops, as in a layer norm or softmax, on two
// row-major f32[2048,768] parameters.
std::string ChainText() {
  const std::string t = absl::StrFormat("f32[%d,%d]{1,0}", kRows, kCols);
  return absl::StrFormat(
      "HloModule chain, entry_computation_layout={(%s, %s)->%s}\n\n"
      "ENTRY main {\n  x = %s parameter(0)\n  y = %s parameter(1)\n"
      "  a = %s add(x, y)\n  b = %s multiply(a, y)\n  c = %s maximum(b, x)\n"
      "  d = %s subtract(c, a)\n  ROOT e = %s exponential(d)\n}\n",
      t, t, t, t, t, t, t, t, t, t);
}
constexpr int kChainOps = 5;

// A sum over the rows (dims={1}: each output reads contiguous elements) or
// over the columns (dims={0}: outputs side by side).
std::string ReduceText(int dim) {
  const std::string t = absl::StrFormat("f32[%d,%d]{1,0}", kRows, kCols);
  const int64_t out = dim == 1 ? kRows : kCols;
  return absl::StrFormat(
      "HloModule sum, entry_computation_layout={(%s)->f32[%d]{0}}\n\n"
      "add {\n  p = f32[] parameter(0)\n  q = f32[] parameter(1)\n"
      "  ROOT r = f32[] add(p, q)\n}\n\n"
      "ENTRY main {\n  x = %s parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT s = f32[%d]{0} reduce(x, z), dimensions={%d}, to_apply=add\n}\n",
      t, out, t, out, dim);
}

// The same arithmetic as plain loops over float arrays: double intermediates
// rounded to float after each op, one pass per op.
void ReferenceChain(const std::vector<float>& x, const std::vector<float>& y,
                    std::vector<float>& a, std::vector<float>& b) {
  const size_t n = x.size();
  for (size_t i = 0; i < n; ++i) a[i] = static_cast<float>(double{x[i]} + y[i]);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<float>(double{a[i]} * y[i]);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<float>(std::fmax(double{b[i]}, x[i]));
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<float>(double{b[i]} - a[i]);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<float>(std::exp(double{b[i]}));
}

void ReferenceReduce(const std::vector<float>& x, int dim, std::vector<float>& out) {
  if (dim == 1) {
    for (int64_t r = 0; r < kRows; ++r) {
      float acc = 0;
      for (int64_t c = 0; c < kCols; ++c) {
        acc = static_cast<float>(double{acc} + x[r * kCols + c]);
      }
      out[r] = acc;
    }
    return;
  }
  std::fill(out.begin(), out.begin() + kCols, 0.0f);
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t c = 0; c < kCols; ++c) {
      out[c] = static_cast<float>(double{out[c]} + x[r * kCols + c]);
    }
  }
}

// `dim` < 0: the chain; else the reduce over `dim`. `fast`: the executor's
// fast paths on. Counters: the executor's and the plain loops' elements
// (read per op) per second.
void BM_Elementwise(benchmark::State& state, int dim, bool fast) {
  std::unique_ptr<HloModule> m = *ParseHloModule(dim < 0 ? ChainText() : ReduceText(dim));
  std::unique_ptr<runtime::Executor> e = *runtime::Executor::Create(*m);
  std::mt19937_64 rng(0);
  std::vector<runtime::Value> args;
  std::vector<std::vector<float>> floats;
  for (const Shape& shape : e->ParameterShapes()) {
    runtime::LogicalArray a = *runtime::RandomLogicalArray(shape, rng);
    floats.emplace_back(a.bytes.size() / 4);
    std::memcpy(floats.back().data(), a.bytes.data(), a.bytes.size());
    args.push_back(*runtime::MakeArgument(shape, a));
  }
  std::vector<float> t0(kRows * kCols), t1(kRows * kCols);
  double run_s = 0, ref_s = 0;
  runtime::SetFastPathsEnabledForTesting(fast);
  for (auto _ : state) {
    auto t = std::chrono::steady_clock::now();
    absl::StatusOr<runtime::Value> out = e->Run(args);
    run_s += Since(t);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      break;
    }
    state.PauseTiming();
    t = std::chrono::steady_clock::now();
    if (dim < 0) {
      ReferenceChain(floats[0], floats[1], t0, t1);
    } else {
      ReferenceReduce(floats[0], dim, t0);
    }
    ref_s += Since(t);
    benchmark::DoNotOptimize(t0.data());
    benchmark::DoNotOptimize(t1.data());
    state.ResumeTiming();
  }
  runtime::SetFastPathsEnabledForTesting(true);
  const double elements =
      static_cast<double>(kRows * kCols) * (dim < 0 ? kChainOps : 1) * state.iterations();
  state.counters["Melem_s"] = elements / run_s / 1e6;
  state.counters["ref_Melem_s"] = elements / ref_s / 1e6;
}

void RegisterAll() {
  for (const char* t : {"default", "tpu", "cpu-avx2", "cpu-avx512", "arm64"}) {
    benchmark::RegisterBenchmark(absl::StrFormat("BM_Mlp/%s", t).c_str(), BM_Mlp, t)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(5);
  }
  // The attention block runs in a fifth of a second on default: five runs
  // average out more of a shared machine's noise; the MLP's default takes
  // seconds a run.
  for (const auto& [name, block, runs] : {std::tuple{"BM_Attention", &kAttention, 5},
                                          std::tuple{"BM_LlamaMlp", &kLlamaMlp, 2}}) {
    for (const char* t : {"default", "cpu-avx512"}) {
      benchmark::RegisterBenchmark(absl::StrFormat("%s/%s", name, t).c_str(), BM_Block, block, t)
          ->Unit(benchmark::kMillisecond)
          ->Iterations(runs);
    }
  }
  for (bool fast : {true, false}) {
    const char* path = fast ? "fast" : "generic";
    const int iterations = fast ? 20 : 2;
    benchmark::RegisterBenchmark(absl::StrFormat("BM_Elementwise/chain/%s", path).c_str(),
                                 BM_Elementwise, -1, fast)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(iterations);
    for (int dim : {1, 0}) {
      benchmark::RegisterBenchmark(
          absl::StrFormat("BM_Elementwise/reduce_dim%d/%s", dim, path).c_str(), BM_Elementwise,
          dim, fast)
          ->Unit(benchmark::kMillisecond)
          ->Iterations(iterations);
    }
  }

}

double Counter(const bench::Run& r, const char* k) {
  auto it = r.counters.find(k);
  return it == r.counters.end() ? 0.0 : static_cast<double>(it->second);
}

// The transformer blocks: each target's total against default's, and the
// dots' GFLOP/s against sgemm's on the same matmuls.
void BlockSummary(const std::vector<bench::Run>& runs, std::ostream& os) {
  os << "\nTransformer blocks on the executor (per run, copies included; sgemm in the same run)\n";
  os << absl::StrFormat("%-26s %9s %9s %7s %10s %9s %12s %7s\n", "block/target", "total s",
                        "copies s", "copies", "vs default", "dot GF/s", "sgemm GF/s", "dot/bl");
  std::map<std::string, double> default_total;
  for (const bench::Run& r : runs) {
    const std::string name = r.benchmark_name();
    if (name.rfind("BM_Mlp/", 0) == 0 || name.rfind("BM_Elementwise/", 0) == 0) continue;
    const std::string block = name.substr(0, name.find('/'));
    if (name.find("/default") != std::string::npos) default_total[block] = Counter(r, "total_s");
    const double total = Counter(r, "total_s");
    os << absl::StrFormat("%-26s %9.3f %9.4f %7.0f %9.2fx %9.2f %12.2f %6.1f%%\n",
                          name.substr(0, name.find("/iterations")), total, Counter(r, "copy_s"),
                          Counter(r, "copies"),
                          total > 0 && default_total.count(block) ? default_total[block] / total : 0.0,
                          Counter(r, "dot_GFLOPs"), Counter(r, "sgemm_GFLOPs"),
                          100 * Counter(r, "dot_GFLOPs") / std::max(1e-9, Counter(r, "sgemm_GFLOPs")));
  }
}

void MlpSummary(const std::vector<bench::Run>& runs, std::ostream& os) {
  os << "\nMLP 256x1024x1024 on the executor (per run; references in the same run)\n";
  os << absl::StrFormat("%-12s %9s %9s %7s %10s %10s %7s %10s %12s %7s\n", "target", "total s",
                        "copies s", "copies", "copy GB/s", "alone GB/s", "ratio", "dot GF/s",
                        "sgemm GF/s", "dot/bl");
  double default_total = 0;
  for (const bench::Run& r : runs) {
    if (r.benchmark_name().rfind("BM_Mlp/", 0) != 0) continue;
    auto get = [&](const char* k) {
      auto it = r.counters.find(k);
      return it == r.counters.end() ? 0.0 : static_cast<double>(it->second);
    };
    std::string name = r.benchmark_name();
    if (name.rfind("BM_Mlp/", 0) != 0) continue;
    std::string target = name.substr(name.find('/') + 1);
    target = target.substr(0, target.find('/'));
    if (target == "default") default_total = get("total_s");
    os << absl::StrFormat("%-12s %9.3f %9.4f %7.0f %10.2f %10.2f %6.2fx %10.2f %12.2f %6.1f%%\n",
                          target, get("total_s"), get("copy_s"), get("copies"), get("copy_GBps"),
                          get("alone_GBps"),
                          get("alone_GBps") > 0 ? get("copy_GBps") / get("alone_GBps") : 0.0,
                          get("dot_GFLOPs"), get("sgemm_GFLOPs"),
                          100 * get("dot_GFLOPs") / std::max(1e-9, get("sgemm_GFLOPs")));
  }
  if (default_total > 0) os << "(default's total: " << default_total << " s)\n";
  BlockSummary(runs, os);
}

void ElementwiseSummary(const std::vector<bench::Run>& runs, std::ostream& os) {
  os << "\nElementwise chain (5 ops) and reduce on f32[2048,768] (plain float loops in the "
        "same run)\n";
  os << absl::StrFormat("%-20s %-8s %12s %12s %8s\n", "case", "path", "exec Melem/s",
                        "loop Melem/s", "exec/loop");
  for (const bench::Run& r : runs) {
    const std::string name = r.benchmark_name();
    if (name.rfind("BM_Elementwise/", 0) != 0) continue;
    auto get = [&](const char* k) {
      auto it = r.counters.find(k);
      return it == r.counters.end() ? 0.0 : static_cast<double>(it->second);
    };
    std::string rest = name.substr(name.find('/') + 1);
    const std::string which = rest.substr(0, rest.find('/'));
    rest = rest.substr(rest.find('/') + 1);
    const std::string path = rest.substr(0, rest.find('/'));
    os << absl::StrFormat("%-20s %-8s %12.1f %12.1f %7.1f%%\n", which, path, get("Melem_s"),
                          get("ref_Melem_s"),
                          100 * get("Melem_s") / std::max(1e-9, get("ref_Melem_s")));
  }
}

void Summary(const std::vector<bench::Run>& runs, std::ostream& os) {
  MlpSummary(runs, os);
  ElementwiseSummary(runs, os);
}

}  // namespace
}  // namespace xla_layout

int main(int argc, char** argv) {
  openblas_set_num_threads(1);
  return xla_layout::bench::BenchmarkMain(argc, argv, xla_layout::RegisterAll, xla_layout::Summary);
}
