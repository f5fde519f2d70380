//===- CpuKernels.cpp - lazyc's CPU code against hand-written baselines ---===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Measures, in one process and interleaved round by round, lazyc's compiled
// traces against the hand-fused reference loops (Reference.cpp), the memory
// roofline (a parallel copy of the same bytes) and OpenBLAS, the compile
// latency of a 20-op trace, compiled and loaded from the persistent compile
// cache, and that of long traces (2000 nodes of scalar ops, chains of tanh
// steps). Prints a Markdown table of medians and ratios.
//
// Outputs are allocated once, outside the timed calls, for every variant
// (fresh 64 MiB buffers would add page faults to whichever variant got
// them). Each kernel's lazyc output is checked against its reference first.
// GEMM alternates blocks of calls with pauses instead of single calls: lazyc
// (OpenMP threads calling OpenBLAS single-threaded) and the OpenBLAS
// baseline (its own pthreads) use different thread pools, and each pool
// spins for a while after its last call.
//
//   lazyc-bench-cpu [--rounds N] [--compile-only]
//
//===----------------------------------------------------------------------===//

#include "lazyc/InitAll.h"
#include "lazyc/JIT/CompiledFunction.h"
#include "lazyc/Runtime/Runtime.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

extern "C" {
void reference_chain(const float *x, float *y, int64_t n);
void reference_softmax(const float *x, float *y, int64_t rows, int64_t cols);
void reference_layernorm(const float *x, const float *gamma, const float *beta,
                         float *y, int64_t rows, int64_t cols, float eps);
void reference_copy(const float *x, float *y, int64_t n);
}

using namespace lazyc;
using Clock = std::chrono::steady_clock;

namespace {

/// 64-byte aligned float buffer from the runtime allocator.
struct Buffer {
  explicit Buffer(size_t count)
      : data(static_cast<float *>(lazyrt_alloc(count * sizeof(float)))),
        count(count) {}
  ~Buffer() { lazyrt_free(data); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  float *data;
  size_t count;
};

void fillUniform(Buffer &buffer, float low, float high, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(low, high);
  for (size_t i = 0; i < buffer.count; ++i)
    buffer.data[i] = dist(engine);
}

/// Compiles `source`'s function `name`; exits with the error on failure.
std::unique_ptr<jit::CompiledFunction> compile(const std::string &source,
                                               const char *name) {
  mlir::DialectRegistry registry;
  lazyc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module) {
    llvm::errs() << "benchmark trace does not parse:\n" << source;
    std::exit(1);
  }
  auto compiled = jit::CompiledFunction::compile(*module, name);
  if (!compiled) {
    llvm::errs() << llvm::toString(compiled.takeError()) << "\n";
    std::exit(1);
  }
  return std::move(*compiled);
}

double timeMs(const std::function<void()> &run) {
  auto start = Clock::now();
  run();
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

/// Largest |a - b| / (|b| + 1): a scale-aware check of two outputs.
double maxError(const Buffer &a, const Buffer &b) {
  double error = 0;
  for (size_t i = 0; i < a.count; ++i)
    error = std::max(error, std::abs(double(a.data[i]) - b.data[i]) /
                                (std::abs(double(b.data[i])) + 1.0));
  return error;
}

void check(const char *what, const Buffer &got, const Buffer &want,
           double tolerance) {
  double error = maxError(got, want);
  if (error > tolerance) {
    llvm::errs() << what << ": lazyc differs from the reference by " << error
                 << " (tolerance " << tolerance << ")\n";
    std::exit(1);
  }
}

/// Runs the variants round-robin `rounds` times and returns their medians.
std::vector<double> interleave(int rounds,
                               const std::vector<std::function<void()>> &runs) {
  std::vector<std::vector<double>> times(runs.size());
  for (auto &run : runs) // Warm up: page tables, caches, thread pools.
    run();
  for (int round = 0; round < rounds; ++round)
    for (size_t v = 0; v < runs.size(); ++v)
      times[v].push_back(timeMs(runs[v]));
  std::vector<double> medians;
  for (auto &t : times)
    medians.push_back(median(t));
  return medians;
}

/// Like interleave, but alternates blocks of `block` calls separated by a
/// pause. For variants on different thread pools (OpenMP vs OpenBLAS's
/// pthreads): a pool keeps spinning for a while after its last call (libomp
/// for 200 ms by default), which would steal a core from the other variant's
/// next call on this 2-core machine.
std::vector<double>
interleaveBlocks(int rounds, int block,
                 const std::vector<std::function<void()>> &runs) {
  std::vector<std::vector<double>> times(runs.size());
  for (int done = 0; done < rounds; done += block) {
    for (size_t v = 0; v < runs.size(); ++v) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      runs[v](); // Warm up this variant's pool.
      for (int i = 0; i < block && done + i < rounds; ++i)
        times[v].push_back(timeMs(runs[v]));
    }
  }
  std::vector<double> medians;
  for (auto &t : times)
    medians.push_back(median(t));
  return medians;
}

std::string chainTrace(int64_t n) {
  return llvm::formatv(R"mlir(
func.func @chain(%x: tensor<{0}xf32>) -> tensor<{0}xf32> {
  %c05 = lazy.constant dense<0.5> : tensor<{0}xf32>
  %c01 = lazy.constant dense<0.1> : tensor<{0}xf32>
  %c15 = lazy.constant dense<1.5> : tensor<{0}xf32>
  %c1 = lazy.constant dense<1.0> : tensor<{0}xf32>
  %0 = lazy.mul %x, %c05 : tensor<{0}xf32>
  %1 = lazy.add %0, %c01 : tensor<{0}xf32>
  %2 = lazy.exp %1 : tensor<{0}xf32>
  %3 = lazy.tanh %2 : tensor<{0}xf32>
  %4 = lazy.mul %3, %c15 : tensor<{0}xf32>
  %5 = lazy.sub %4, %c1 : tensor<{0}xf32>
  %6 = lazy.relu %5 : tensor<{0}xf32>
  %7 = lazy.mul %x, %x : tensor<{0}xf32>
  %8 = lazy.add %7, %c1 : tensor<{0}xf32>
  %9 = lazy.div %6, %8 : tensor<{0}xf32>
  return %9 : tensor<{0}xf32>
})mlir",
                       n)
      .str();
}

std::string softmaxTrace(int64_t rows, int64_t cols) {
  return llvm::formatv(R"mlir(
func.func @softmax(%x: tensor<{0}x{1}xf32>) -> tensor<{0}x{1}xf32> {
  %0 = lazy.softmax %x, axis = 1 : tensor<{0}x{1}xf32>
  return %0 : tensor<{0}x{1}xf32>
})mlir",
                       rows, cols)
      .str();
}

std::string layerNormTrace(int64_t rows, int64_t cols) {
  return llvm::formatv(R"mlir(
func.func @layernorm(%x: tensor<{0}x{1}xf32>, %g: tensor<{1}xf32>, %b: tensor<{1}xf32>) -> tensor<{0}x{1}xf32> {
  %m = lazy.reduce_mean %x [1] keep_dims : tensor<{0}x{1}xf32>
  %mb = lazy.broadcast %m to [{0}, {1}] : tensor<{0}x1xf32>
  %d = lazy.sub %x, %mb : tensor<{0}x{1}xf32>
  %d2 = lazy.mul %d, %d : tensor<{0}x{1}xf32>
  %v = lazy.reduce_mean %d2 [1] keep_dims : tensor<{0}x{1}xf32>
  %eps = lazy.constant dense<1.0e-5> : tensor<{0}x1xf32>
  %ve = lazy.add %v, %eps : tensor<{0}x1xf32>
  %r = lazy.rsqrt %ve : tensor<{0}x1xf32>
  %rb = lazy.broadcast %r to [{0}, {1}] : tensor<{0}x1xf32>
  %n = lazy.mul %d, %rb : tensor<{0}x{1}xf32>
  %gb = lazy.broadcast %g to [{0}, {1}] : tensor<{1}xf32>
  %bb = lazy.broadcast %b to [{0}, {1}] : tensor<{1}xf32>
  %s = lazy.mul %n, %gb : tensor<{0}x{1}xf32>
  %y = lazy.add %s, %bb : tensor<{0}x{1}xf32>
  return %y : tensor<{0}x{1}xf32>
})mlir",
                       rows, cols)
      .str();
}

std::string gemmTrace(int64_t m, int64_t k, int64_t n) {
  return llvm::formatv(R"mlir(
func.func @gemm(%a: tensor<{0}x{1}xf32>, %b: tensor<{1}x{2}xf32>) -> tensor<{0}x{2}xf32> {
  %0 = lazy.matmul %a, %b : tensor<{0}x{1}xf32>, tensor<{1}x{2}xf32>
  return %0 : tensor<{0}x{2}xf32>
})mlir",
                       m, k, n)
      .str();
}

/// 20 ops: a linear layer, its activation, a softmax and a few reductions;
/// `scale` keeps traces of different rounds apart in the compile cache.
std::string twentyOpTrace(int scale) {
  return llvm::formatv(R"mlir(
func.func @trace(%x: tensor<64x128xf32>, %w: tensor<128x32xf32>, %b: tensor<32xf32>) -> (tensor<64x32xf32>, tensor<f32>) {{
  %0 = lazy.matmul %x, %w : tensor<64x128xf32>, tensor<128x32xf32>
  %1 = lazy.broadcast %b to [64, 32] : tensor<32xf32>
  %2 = lazy.add %0, %1 : tensor<64x32xf32>
  %3 = lazy.relu %2 : tensor<64x32xf32>
  %c = lazy.constant dense<0.{0}> : tensor<64x32xf32>
  %4 = lazy.mul %3, %c : tensor<64x32xf32>
  %5 = lazy.tanh %4 : tensor<64x32xf32>
  %6 = lazy.exp %5 : tensor<64x32xf32>
  %7 = lazy.sub %6, %4 : tensor<64x32xf32>
  %8 = lazy.softmax %7, axis = 1 : tensor<64x32xf32>
  %9 = lazy.log %8 : tensor<64x32xf32>
  %10 = lazy.neg %9 : tensor<64x32xf32>
  %11 = lazy.reduce_max %10 [1] keep_dims : tensor<64x32xf32>
  %12 = lazy.broadcast %11 to [64, 32] : tensor<64x1xf32>
  %13 = lazy.div %10, %12 : tensor<64x32xf32>
  %14 = lazy.sqrt %13 : tensor<64x32xf32>
  %15 = lazy.transpose %14 [1, 0] : tensor<64x32xf32>
  %16 = lazy.reduce_sum %15 [0, 1] : tensor<32x64xf32>
  %17 = lazy.sigmoid %14 : tensor<64x32xf32>
  return %17, %16 : tensor<64x32xf32>, tensor<f32>
})mlir",
                       scale)
      .str();
}

/// A trace of `ops` scalar ops on a tensor as the API records them (each
/// literal a node of its own: 2 * ops nodes), `y * 0.999` and `y + 0.001`
/// alternating; `tag` keeps traces apart in the compile cache.
std::string scalarChainTrace(int ops, int64_t elements, int tag) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "func.func @trace(%y0: tensor<" << elements << "xf32>) -> tensor<"
     << elements << "xf32> {\n";
  for (int i = 0; i < ops; ++i) {
    bool multiply = i % 2 == 0;
    os << llvm::formatv(
        "  %c{0} = lazy.constant dense<{1}> : tensor<{2}xf32>\n"
        "  %y{3} = lazy.{4} %y{0}, %c{0} : tensor<{2}xf32>\n",
        i, multiply ? "0.999" : llvm::formatv("0.00{0}", tag).str(), elements,
        i + 1, multiply ? "mul" : "add");
  }
  os << "  return %y" << ops << " : tensor<" << elements << "xf32>\n}\n";
  return text;
}

/// `steps` steps of y = tanh(0.9 y + 0.1) - 0.01 y on 64K elements, as the
/// API records them: 8 nodes a step.
std::string tanhChainTrace(int steps, int tag) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "func.func @trace(%y0: tensor<65536xf32>) -> tensor<65536xf32> {\n";
  for (int i = 0; i < steps; ++i)
    os << llvm::formatv(
        "  %a{0} = lazy.constant dense<0.9> : tensor<65536xf32>\n"
        "  %b{0} = lazy.constant dense<0.{2}> : tensor<65536xf32>\n"
        "  %c{0} = lazy.constant dense<0.01> : tensor<65536xf32>\n"
        "  %m{0} = lazy.mul %y{0}, %a{0} : tensor<65536xf32>\n"
        "  %s{0} = lazy.add %m{0}, %b{0} : tensor<65536xf32>\n"
        "  %t{0} = lazy.tanh %s{0} : tensor<65536xf32>\n"
        "  %d{0} = lazy.mul %y{0}, %c{0} : tensor<65536xf32>\n"
        "  %y{1} = lazy.sub %t{0}, %d{0} : tensor<65536xf32>\n",
        i, i + 1, 1000 + tag);
  os << "  return %y" << steps << " : tensor<65536xf32>\n}\n";
  return text;
}

struct Row {
  std::string kernel, lazyc, reference, ratio, roofline;
};

} // namespace

int main(int argc, char **argv) {
  // A compile cache of this run's own, removed at exit.
  llvm::SmallString<128> cacheDir;
  if (llvm::sys::fs::createUniqueDirectory("lazyc-bench-cpu-cache", cacheDir))
    return 1;
  setenv("LAZYC_CACHE_DIR", cacheDir.c_str(), 1);
  struct RemoveCache {
    std::string path;
    ~RemoveCache() { llvm::sys::fs::remove_directories(path); }
  } removeCache{std::string(cacheDir)};
  int rounds = 15;
  bool compileOnly = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--rounds" && i + 1 < argc)
      rounds = std::atoi(argv[i + 1]);
    compileOnly |= std::string(argv[i]) == "--compile-only";
  }
  unsigned threads = std::thread::hardware_concurrency();
  std::vector<Row> rows;

  if (!compileOnly) {
    // Elementwise chain against the hand-fused loop and the copy roofline.
    for (int64_t n : {int64_t(1) << 22, int64_t(1) << 24}) {
      auto compiled = compile(chainTrace(n), "chain");
      Buffer x(n), y(n), reference(n);
      fillUniform(x, -3, 3, 1);
      int64_t shape[] = {n};
      auto lazycRun = [&] {
        llvm::cantFail(compiled->call({{x.data, shape}}, {{y.data, shape}}));
      };
      lazycRun();
      reference_chain(x.data, reference.data, n);
      check("chain", y, reference, 1e-5);
      auto medians = interleave(
          rounds,
          {lazycRun, [&] { reference_chain(x.data, reference.data, n); },
           [&] { reference_copy(x.data, reference.data, n); }});
      rows.push_back(
          {llvm::formatv("chain, {0}M f32", n >> 20),
           llvm::formatv("{0:f2} ms", medians[0]),
           llvm::formatv("{0:f2} ms", medians[1]),
           llvm::formatv("{0:f2}x", medians[0] / medians[1]),
           llvm::formatv("copy {0:f2} ms ({1:f0}% of lazyc)", medians[2],
                         100 * medians[2] / medians[0])});
    }

    // Row softmax and layer norm, 4096 x 1024.
    {
      int64_t r = 4096, c = 1024;
      int64_t shape[] = {r, c};
      Buffer x(r * c), y(r * c), reference(r * c);
      fillUniform(x, -4, 4, 2);
      auto softmax = compile(softmaxTrace(r, c), "softmax");
      auto softmaxRun = [&] {
        llvm::cantFail(softmax->call({{x.data, shape}}, {{y.data, shape}}));
      };
      softmaxRun();
      reference_softmax(x.data, reference.data, r, c);
      check("softmax", y, reference, 1e-5);
      auto medians = interleave(
          rounds,
          {softmaxRun, [&] { reference_softmax(x.data, reference.data, r, c); },
           [&] { reference_copy(x.data, reference.data, r * c); }});
      rows.push_back({"row softmax, 4096x1024 f32",
                      llvm::formatv("{0:f2} ms", medians[0]),
                      llvm::formatv("{0:f2} ms", medians[1]),
                      llvm::formatv("{0:f2}x", medians[0] / medians[1]),
                      llvm::formatv("copy {0:f2} ms", medians[2])});

      Buffer gamma(c), beta(c);
      fillUniform(gamma, 0.5, 1.5, 3);
      fillUniform(beta, -0.5, 0.5, 4);
      int64_t vector[] = {c};
      auto layerNorm = compile(layerNormTrace(r, c), "layernorm");
      auto layerNormRun = [&] {
        llvm::cantFail(layerNorm->call(
            {{x.data, shape}, {gamma.data, vector}, {beta.data, vector}},
            {{y.data, shape}}));
      };
      layerNormRun();
      reference_layernorm(x.data, gamma.data, beta.data, reference.data, r, c,
                          1e-5f);
      check("layernorm", y, reference, 1e-4);
      medians = interleave(
          rounds, {layerNormRun,
                   [&] {
                     reference_layernorm(x.data, gamma.data, beta.data,
                                         reference.data, r, c, 1e-5f);
                   },
                   [&] { reference_copy(x.data, reference.data, r * c); }});
      rows.push_back({"layer norm, 4096x1024 f32",
                      llvm::formatv("{0:f2} ms", medians[0]),
                      llvm::formatv("{0:f2} ms", medians[1]),
                      llvm::formatv("{0:f2}x", medians[0] / medians[1]),
                      llvm::formatv("copy {0:f2} ms", medians[2])});
    }

    // GEMM against OpenBLAS with all threads (its best configuration here).
    for (auto shapeMKN :
         {std::tuple<int64_t, int64_t, int64_t>{1024, 1024, 1024},
          {512, 784, 128},
          {128, 784, 512}}) {
      // Plain copies: structured bindings cannot be captured by the lambdas.
      int64_t m = std::get<0>(shapeMKN), k = std::get<1>(shapeMKN),
              n = std::get<2>(shapeMKN);
      Buffer a(m * k), b(k * n), c(m * n), reference(m * n);
      fillUniform(a, -1, 1, 5);
      fillUniform(b, -1, 1, 6);
      int64_t aShape[] = {m, k}, bShape[] = {k, n}, cShape[] = {m, n};
      auto gemm = compile(gemmTrace(m, k, n), "gemm");
      auto lazycRun = [&] {
        llvm::cantFail(gemm->call({{a.data, aShape}, {b.data, bShape}},
                                  {{c.data, cShape}}));
      };
      auto blasRun = [&] {
        // lazyc's runtime keeps OpenBLAS single-threaded; the baseline gets
        // every core.
        openblas_set_num_threads(threads);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                    a.data, k, b.data, n, 0.0f, reference.data, n);
        openblas_set_num_threads(1);
      };
      lazycRun();
      blasRun();
      check("gemm", c, reference, 1e-4);
      auto medians = interleaveBlocks(rounds, 7, {lazycRun, blasRun});
      double flops = 2.0 * m * n * k;
      rows.push_back(
          {llvm::formatv("GEMM {0}x{1}x{2} f32", m, k, n),
           llvm::formatv("{0:f2} ms ({1:f0} GFLOP/s)", medians[0],
                         flops / medians[0] / 1e6),
           llvm::formatv("OpenBLAS {0:f2} ms ({1:f0} GFLOP/s)", medians[1],
                         flops / medians[1] / 1e6),
           llvm::formatv("{0:f2}x OpenBLAS speed", medians[1] / medians[0]),
           ""});
    }
  }

  // Compile latency of a 20-op trace: parse + MLIR pipeline + LLVM, in a
  // context that already exists (as in a running program). Each round's
  // trace is new to the persistent compile cache, which stores it; loading
  // the stored code is timed next (as a second process would).
  {
    mlir::DialectRegistry registry;
    lazyc::registerAllDialects(registry);
    mlir::MLIRContext context(registry);
    context.loadAllAvailableDialects();
    std::vector<double> compiles, loads;
    std::vector<jit::CompileStats> compiled, loaded;
    int traces = std::max(5, rounds / 2);
    auto compileTrace = [&](int round, std::vector<jit::CompileStats> &stats) {
      return timeMs([&] {
        auto module = mlir::parseSourceString<mlir::ModuleOp>(
            twentyOpTrace(5000 + round), &context);
        auto function = jit::CompiledFunction::compile(*module, "trace");
        stats.push_back(llvm::cantFail(std::move(function))->stats());
      });
    };
    for (int round = 0; round < traces; ++round)
      compiles.push_back(compileTrace(round, compiled));
    for (int round = 0; round < traces; ++round)
      loads.push_back(compileTrace(round, loaded));
    if (!compiled.back().storedToDiskCache ||
        !loaded.back().loadedFromDiskCache) {
      llvm::errs() << "lazyc-bench-cpu: the compile cache did not store and "
                      "load the 20-op trace\n";
      std::exit(1);
    }
    auto phase = [&](double jit::CompileStats::*field) {
      std::vector<double> times;
      for (const jit::CompileStats &stats : compiled)
        times.push_back(stats.*field);
      return median(times);
    };
    rows.push_back(
        {"compile a 20-op trace", llvm::formatv("{0:f1} ms", median(compiles)),
         "", "",
         llvm::formatv("medians: MLIR {0:f1} ms, LLVM {1:f1} ms (to LLVM IR "
                       "{2:f1}, IR passes {3:f1}, object {4:f1}, store + link "
                       "{5:f1}; {6} parts compiled at once)",
                       phase(&jit::CompileStats::pipelineMs),
                       phase(&jit::CompileStats::codegenMs),
                       phase(&jit::CompileStats::translateMs),
                       phase(&jit::CompileStats::optimizeMs),
                       phase(&jit::CompileStats::objectMs),
                       phase(&jit::CompileStats::linkMs),
                       compiled.back().codegenParts)});
    rows.push_back({"the same 20-op trace, found in the persistent cache",
                    llvm::formatv("{0:f2} ms", median(loads)), "",
                    llvm::formatv("{0:f0}x faster than compiling",
                                  median(compiles) / median(loads)),
                    "parse + key + read + link"});

    // Long traces (issue 18: a 2000-node trace compiles in < 400 ms): what
    // the API records for chains of scalar ops, and a chain of transcendental
    // steps. Each round's trace is new to the compile cache.
    struct LongTrace {
      const char *what;
      std::function<std::string(int)> source;
      int rounds;
    };
    LongTrace longTraces[] = {
        {"compile a 2000-node trace: 1000 scalar ops on 16 f32",
         [](int tag) { return scalarChainTrace(1000, 16, tag); }, 5},
        {"compile a 2000-node trace: 1000 scalar ops on 64K f32",
         [](int tag) { return scalarChainTrace(1000, 65536, tag); }, 5},
        {"compile a 320-node trace: 40 tanh steps on 64K f32",
         [](int tag) { return tanhChainTrace(40, tag); }, 5},
        {"compile a 2000-node trace: 250 tanh steps on 64K f32",
         [](int tag) { return tanhChainTrace(250, tag); }, 3}};
    for (const LongTrace &trace : longTraces) {
      std::vector<double> times;
      std::vector<jit::CompileStats> stats;
      for (int round = 0; round < trace.rounds; ++round)
        times.push_back(timeMs([&] {
          auto module = mlir::parseSourceString<mlir::ModuleOp>(
              trace.source(round + 1), &context);
          auto function = jit::CompiledFunction::compile(*module, "trace");
          stats.push_back(llvm::cantFail(std::move(function))->stats());
        }));
      std::vector<double> mlir, llvm;
      for (const jit::CompileStats &each : stats) {
        mlir.push_back(each.pipelineMs);
        llvm.push_back(each.codegenMs);
      }
      rows.push_back(
          {trace.what, llvm::formatv("{0:f1} ms", median(times)), "", "",
           llvm::formatv("medians of {0}: MLIR {1:f1} ms, LLVM {2:f1} ms",
                         trace.rounds, median(mlir), median(llvm))});
    }
  }

  llvm::outs() << llvm::formatv("{0} threads, {1} interleaved rounds, medians; "
                                "outputs preallocated\n\n",
                                threads, rounds);
  llvm::outs() << "| kernel | lazyc | reference | lazyc / reference | notes |\n"
                  "| --- | --- | --- | --- | --- |\n";
  for (const Row &row : rows)
    llvm::outs() << "| " << row.kernel << " | " << row.lazyc << " | "
                 << row.reference << " | " << row.ratio << " | " << row.roofline
                 << " |\n";
  return 0;
}
